import type { ParsedArgs } from "../../cli/rpkg/args.js";
import type { RpkgEnv } from "../../cli/rpkg/env.js";
import type { Verb } from "../../cli/rpkg/verb.js";
import { apiErrorOfPorch } from "../porch-errors.js";
import { ApiError } from "../status.js";
import { asApiErrors } from "./context.js";

/** What one run of a verb was given: its names, flag values, and stdin (a ResourceList). */
export interface VerbCall {
  positional: string[];
  values?: Record<string, string>;
  stdin?: string;
}

/**
 * Runs one of rpkg's verbs for the API (the same code as `porchlight rpkg VERB`, acting with the caller's
 * token): its output kept, a failure it reports (the multi-name verbs report on stderr and exit 1, and
 * tell env.onFailure) turned into an ApiError of the failure's kind with rpkg's message.
 */
export async function runVerb(env: RpkgEnv, verb: Verb, call: VerbCall): Promise<string> {
  let stdout = "";
  const io = {
    ...env.io,
    stdout: (t: string) => {
      stdout += t;
    },
    stderr: () => {},
    readStdin: async () => call.stdin ?? "",
  };
  const args: ParsedArgs = {
    positional: call.positional,
    values: new Map(Object.entries(call.values ?? {})),
    switches: new Set(),
    lists: new Map(),
  };
  let failure: { error: unknown; said: string } | undefined;
  const onFailure = (error: unknown, said: string) => {
    failure ??= { error, said };
  };
  const code = await asApiErrors(() => verb.run(args, { ...env, io, onFailure }));
  if (code === 0) return stdout;
  if (failure === undefined) throw new ApiError("BadRequest", `rpkg ${verb.name} failed`);
  // the reason by the failure's kind; the message as rpkg said it (a failure not the engine's: BadRequest)
  const mapped = apiErrorOfPorch(failure.error);
  throw new ApiError(mapped instanceof ApiError ? mapped.reason : "BadRequest", failure.said);
}
