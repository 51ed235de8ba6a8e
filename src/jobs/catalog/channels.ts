import { parseDocument } from "yaml";
import { CHANNELS_ANNOTATION } from "../../catalog/annotations.js";

const CHANNEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/**
 * The channels a published revision joins: those its Kptfile's `porchlight.dev/channels` annotation names
 * (comma-separated; `""` for none), else the repository's default channel (config `channels.default`).
 * Names that are no channel names are dropped.
 */
export function publishChannels(kptfileText: string | undefined, defaultChannel: string): string[] {
  if (kptfileText !== undefined) {
    const doc = parseDocument(kptfileText);
    const value = doc.errors.length ? undefined : doc.getIn(["metadata", "annotations", CHANNELS_ANNOTATION]);
    if (typeof value === "string") {
      return [...new Set(value.split(",").map((c) => c.trim()))].filter((c) => CHANNEL.test(c));
    }
  }
  return [defaultChannel];
}
