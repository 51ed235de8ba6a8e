import type { Verb } from "../../commands/args.js";
import type { VerbHandler } from "./types.js";

/** A verb whose part of porchlight is not installed here yet: a clear refusal naming it, never silence. */
export function notYet(verb: Verb, part: string): VerbHandler {
  return async () => ({
    kind: "refused",
    reason: `\`/${verb}\` is not available yet in this installation: it needs porchlight's ${part}, which is not enabled here.`,
  });
}
