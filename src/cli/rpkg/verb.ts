import { UsageError } from "../io.js";
import type { ParsedArgs } from "./args.js";
import { describeFailure } from "./errors.js";
import { findProposal, type ProposalRevision } from "./names.js";
import { openRepository, type Repository, type RpkgEnv } from "./repository.js";

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

/**
 * The opening the verbs that act on proposals share (approve, reject): at least one name, the
 * repository opened once, then for each name its revision found among the proposals (a refusal naming
 * its lifecycle otherwise) and `act` run on it, as forEachName reports.
 */
export async function forEachProposal(
  verb: string,
  usage: string,
  args: ParsedArgs,
  env: RpkgEnv,
  refusal: (name: string, lifecycle: string, repo: Repository) => string,
  act: (repo: Repository, rev: ProposalRevision) => Promise<string>,
): Promise<number> {
  if (args.positional.length === 0)
    throw new UsageError(`rpkg ${verb} needs PACKAGE_REV_NAME...\n\n${usage}`);
  const repo = await openRepository(env, args.values.get("repository"), verb);
  return forEachName(args.positional, env, repo.full, async (name) => {
    const rev = findProposal(repo, await repo.load(), name, ({ lifecycle }) =>
      refusal(name, lifecycle, repo),
    );
    return act(repo, rev);
  });
}
