import type { ParsedArgs } from "./args.js";
import { describeFailure } from "./errors.js";
import type { RpkgEnv } from "./repository.js";

/** One `rpkg` subcommand: its usage text, its own flags, and what it does. */
export interface Verb {
  name: string;
  /** One line for the group's help. */
  summary: string;
  usage: string;
  /** Value flags (`value`) and switches, besides the common --repository and --api-url. */
  flags: Record<string, "value" | "switch">;
  run(args: ParsedArgs, env: RpkgEnv): Promise<number>;
}

/**
 * Runs `fn` for each name, as porchctl does for its multi-name verbs: one line per name on success
 * (`fn` returns it), `<name> failed (<reason>)` on stderr otherwise, and exit 1 if any failed.
 */
export async function forEachName(
  names: readonly string[],
  env: RpkgEnv,
  repository: string,
  fn: (name: string) => Promise<string>,
): Promise<number> {
  let failed = 0;
  for (const name of names) {
    try {
      env.io.stdout(`${await fn(name)}\n`);
    } catch (e) {
      failed++;
      env.io.stderr(`${name} failed (${describeFailure(e, repository)})\n`);
    }
  }
  return failed === 0 ? 0 : 1;
}
