import type { PackageRevision } from "../../lifecycle/index.js";
import { asProposal, findRevision, type ProposalRevision } from "../../porch/names.js";
import { openRepository, type RepoState, type Repository } from "../../porch/repository.js";
import { UsageError } from "../io.js";
import type { FlagSpec, ParsedArgs } from "./args.js";
import type { RpkgEnv } from "./env.js";
import { describeFailure, failureAdvice } from "./errors.js";

/** One `rpkg` subcommand: its usage text, its own flags, and what it does. */
export interface Verb {
  name: string;
  /** One line for the group's help. */
  summary: string;
  usage: string;
  /** Value flags (`value`) and switches, besides the common --repository and --api-url. */
  flags: FlagSpec;
  run(args: ParsedArgs, env: RpkgEnv): Promise<number>;
}

/** What one name's work says: a line on stdout, or a notice on stderr that is no failure. */
export type NameOutcome = string | { notice: string };

/**
 * Runs `fn` for each name, as porchctl does for its multi-name verbs: one line per name on success
 * (`fn` returns it; a notice goes to stderr instead, as porchctl's "already proposed for deletion"),
 * `<name> failed (<reason>)` on stderr otherwise, and exit 1 if any failed.
 */
async function forEachName(
  names: readonly string[],
  env: RpkgEnv,
  repository: string,
  fn: (name: string) => Promise<NameOutcome>,
): Promise<number> {
  const messages: string[] = [];
  for (const name of names) {
    try {
      const outcome = await fn(name);
      if (typeof outcome === "string") env.io.stdout(`${outcome}\n`);
      else env.io.stderr(`${outcome.notice}\n`);
    } catch (e) {
      const message = describeFailure(e, repository);
      messages.push(message);
      env.onFailure?.(e, message);
      env.io.stderr(`${name} failed (${message})\n`);
      env.io.stderr(failureAdvice(e, env.verbose, env.io.isTTY));
    }
  }
  // porchctl's last line(s): every failure again, under "Error: errors:"
  if (messages.length > 0) env.io.stderr(`Error: errors:\n  ${messages.join("\n  ")} \n`);
  return messages.length === 0 ? 0 : 1;
}

/**
 * The repository a verb names (`--repository`, else GITHUB_REPOSITORY), opened with its config;
 * `readAhead` when the verb's next step is `repo.load()` (openRepository).
 */
export function openVerbRepository(
  verb: string,
  args: ParsedArgs,
  env: RpkgEnv,
  signal?: AbortSignal,
  readAhead = false,
): Promise<Repository> {
  return openRepository(env, args.values.get("repository"), verb, signal, readAhead);
}

/**
 * The opening the multi-revision verbs share (del, propose, propose-delete, approve, reject): at least
 * one name, the repository opened once, then for each name the revisions read afresh (an earlier name
 * may have changed them), its revision found and `act` run on it, as forEachName reports.
 */
export async function forEachRevision(
  verb: string,
  usage: string,
  args: ParsedArgs,
  env: RpkgEnv,
  act: (repo: Repository, rev: PackageRevision, state: RepoState, name: string) => Promise<NameOutcome>,
): Promise<number> {
  if (args.positional.length === 0)
    throw new UsageError(`rpkg ${verb} needs PACKAGE_REV_NAME...\n\n${usage}`);
  const repo = await openVerbRepository(verb, args, env, undefined, true);
  return forEachName(args.positional, env, repo.full, async (name) => {
    const state = await repo.load();
    return act(repo, findRevision(repo, state, name), state, name);
  });
}

/** forEachRevision over proposals only: any other revision is refused with `refusal`, naming its lifecycle. */
export function forEachProposal(
  verb: string,
  usage: string,
  args: ParsedArgs,
  env: RpkgEnv,
  refusal: (name: string, lifecycle: string, repo: Repository) => string,
  act: (repo: Repository, rev: ProposalRevision) => Promise<string>,
): Promise<number> {
  return forEachRevision(verb, usage, args, env, (repo, rev, _state, name) =>
    act(
      repo,
      asProposal(rev, () => refusal(name, rev.lifecycle, repo)),
    ),
  );
}
