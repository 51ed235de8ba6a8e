import { ApiError } from "../../porchapi/status.js";
import type { ParsedArgs } from "../rpkg/args.js";
import type { RpkgEnv } from "../rpkg/repository.js";
import type { Verb } from "../rpkg/verb.js";
import { asApiErrors } from "./context.js";

/** What one run of a verb was given: its names, flag values, and stdin (a ResourceList). */
export interface VerbCall {
  positional: string[];
  values?: Record<string, string>;
  stdin?: string;
}

/**
 * The reason a failure's text names: rpkg's messages are Porch's (and Kubernetes') own, so a lost race
 * reads as a Conflict, a taken name as AlreadyExists, a refusal of GitHub's as Forbidden.
 */
function reasonOf(message: string): ApiError["reason"] {
  if (/Operation cannot be fulfilled|changed by another request/.test(message)) return "Conflict";
  if (/already exists/.test(message)) return "AlreadyExists";
  if (/is forbidden|permission|not allowed|refused your/i.test(message)) return "Forbidden";
  if (/not found|no package revision named|no such/i.test(message)) return "NotFound";
  return "BadRequest";
}

/**
 * Runs one of rpkg's verbs for the API (the same code as `porchlight rpkg VERB`, acting with the caller's
 * token): its output kept, a failure it reports on stderr (the multi-name verbs report there and exit 1)
 * turned into an ApiError with rpkg's message, as Porch's API answers it.
 */
export async function runVerb(env: RpkgEnv, verb: Verb, call: VerbCall): Promise<string> {
  let stdout = "";
  let stderr = "";
  const io = {
    ...env.io,
    stdout: (t: string) => {
      stdout += t;
    },
    stderr: (t: string) => {
      stderr += t;
    },
    readStdin: async () => call.stdin ?? "",
  };
  const args: ParsedArgs = {
    positional: call.positional,
    values: new Map(Object.entries(call.values ?? {})),
    switches: new Set(),
    lists: new Map(),
  };
  const code = await asApiErrors(() => verb.run(args, { ...env, io }));
  if (code === 0) return stdout;
  // "NAME failed (MESSAGE)" of the multi-name verbs, else the last "Error: …" line
  const failed = /^\S+ failed \(([\s\S]*)\)\n/m.exec(stderr)?.[1];
  const message = (failed ?? stderr.replace(/^Error: /m, "")).trim();
  throw new ApiError(reasonOf(message), message || `rpkg ${verb.name} failed`);
}
