import { CHANNELS_ANNOTATION } from "../../catalog/annotations.js";
import { readKptfileFields } from "../../kpt/kptfile.js";

const CHANNEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/**
 * The channels a published revision joins: those its Kptfile's `porchlight.dev/channels` annotation names
 * (comma-separated; `""` for none), else the repository's default channel (config `channels.default`).
 * Names that are no channel names are dropped.
 */
export function publishChannels(kptfileText: string | undefined, defaultChannel: string): string[] {
  if (kptfileText !== undefined) {
    const value = readKptfileFields(kptfileText).annotations[CHANNELS_ANNOTATION];
    if (value !== undefined) {
      return [...new Set(value.split(",").map((c) => c.trim()))].filter((c) => CHANNEL.test(c));
    }
  }
  return [defaultChannel];
}
