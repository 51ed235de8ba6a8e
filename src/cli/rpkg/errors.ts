import { PorchError } from "../../porch/errors.js";
import { UsageError } from "../io.js";

export { describeFailure } from "../../porch/failure-text.js";

/**
 * The lines printed after a failure line (porchctl's own, kept as porchctl writes it): the advice on a
 * terminal or with -v, the hint only with -v.
 */
export function failureAdvice(e: unknown, verbose: boolean | undefined, terminal: boolean): string {
  if (!(e instanceof PorchError)) return "";
  const advice = e.advice === undefined || !(verbose || terminal) ? "" : `  ${e.advice}\n`;
  return `${advice}${verbose && e.hint ? `  ${e.hint}\n` : ""}`;
}

/**
 * A refusal porchctl makes while checking its flags, before it asks the server anything: printed as
 * porchctl prints those (`error: …`, lower case, no trailing space), exit 1.
 */
export class FlagRefusal extends PorchError {
  constructor(message: string) {
    super("bad-request", message);
    this.name = "FlagRefusal";
  }
}

/** A target the engine found named wrongly (`--repository` that is no OWNER/REPO) as the command line's usage error. */
export function asUsageError(e: unknown): unknown {
  return e instanceof PorchError && e.more.usage ? new UsageError(e.message) : e;
}

/** porchctl's exit code for a failure: 1, whatever the kind (cobra's, for any error a command returns). */
export const FAILURE_EXIT_CODE = 1;
