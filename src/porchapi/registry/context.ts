import type { AnswerCache } from "../../github/conditional.js";
import type { CheckWait } from "../../porch/approve.js";
import type { UpstreamAccess } from "../../porch/egress.js";
import { registrationsOf } from "../../porch/namespace.js";
import { type RegistryAccess, RegistryError } from "../../porch/registrations.js";
import type { RevisionIndex } from "../../porch/revision-index.js";
import type { OpEnv } from "../../porch/steps.js";
import { apiErrorOfPorch } from "../porch-errors.js";
import { ApiError } from "../status.js";
import type { Caller } from "../store.js";
import type { CallerFolders } from "./caller-folders.js";

/** Where the stores reach GitHub: its REST base, and a folder for each caller's cache clones. */
export interface StoreSettings {
  apiUrl: string | undefined;
  /** Each caller's folder of cache clones, the most recently used kept (caller-folders.ts). */
  folders: CallerFolders;
  /**
   * GitHub's answers to the callers' GETs, kept per token and asked again as conditional requests: each
   * API request reads its namespace's registrations and repositories afresh, and what did not change
   * costs a 304, which GitHub does not count against the caller's hourly budget.
   */
  conditional?: AnswerCache;
  /** The environment commits take their author from (GIT_AUTHOR_NAME…), as rpkg's. */
  env: NodeJS.ProcessEnv;
  /**
   * The index of the namespaces' package revisions (src/porch/revision-index.ts) that lists, gets and
   * watches read; each write here tells it what changed.
   */
  index: RevisionIndex;
  /** Told each upstream a clone or an upgrade could not reach, with what git met (the operator's log). */
  report?: UpstreamAccess["report"];
  /**
   * The bot beside the API (`porchlight serve`): whether its jobs for an owner's repositories are parked
   * by GitHub's rate limit, so that an approval waiting for their checks says so at once (approve.ts).
   */
  botParked?: CheckWait["botParked"];
}

/**
 * How the caller reaches GitHub: their token, their folder of cache clones (held for the request), their
 * kept answers, and the request's signal, which ends their requests to GitHub when the request ends.
 */
export async function callerAccess(settings: StoreSettings, caller: Caller): Promise<RegistryAccess> {
  return {
    token: caller.token,
    apiUrl: settings.apiUrl,
    cacheDir: await settings.folders.hold(caller.token, caller.signal),
    conditional: settings.conditional,
    // facts of commits (a registry's files by its head, packages, messages): the same for every reader
    disk: settings.index.facts,
    signal: caller.signal,
  };
}

/** Steps the API shows nobody: it answers with objects, not progress. */
const unseen: OpEnv["progress"] = {
  step: () => ({ tick() {}, done() {}, fail() {} }),
};

/**
 * The engine's environment for one request: the caller's token (every read and write acts as them on
 * GitHub), a cache folder of their own (one caller's clones never serve another), the namespace and its
 * registrations.
 */
export async function requestEnv(settings: StoreSettings, caller: Caller, namespace: string): Promise<OpEnv> {
  const access = await callerAccess(settings, caller);
  const { registrations, elsewhere } = await asApiErrors(() => registrationsOf(access, namespace));
  return {
    ...access,
    progress: unseen,
    authorEnv: settings.env,
    disk: settings.index.facts,
    // a repository's configuration files by their default branch's commit, as the index keeps them
    files: settings.index.files,
    // and which commits its clones hold, with trees and blobs by id, as the index keeps them
    objects: settings.index.objects,
    // and what GitHub said of each repository to this token a moment ago
    metadata: settings.index.metadata,
    // and which draft branches have no proposal merged at their head (the index's listings of them)
    draftPulls: settings.index.draftPulls,
    // and the drafts its writes move noted there, on every replica of a fleet
    draftMade: (repo, branch, sha) => settings.index.draftMade(repo, branch, sha),
    // and the repositories' open pull requests as the index keeps them, told of what its writes change
    openPulls: settings.index.openPulls,
    namespace,
    registrations,
    elsewhere,
  };
}

/** The registry's and the engine's failures as the API's: 404, 403, 409, 400… with their messages. */
function apiErrorOf(e: unknown): unknown {
  if (e instanceof RegistryError) return new ApiError("BadRequest", e.message);
  return apiErrorOfPorch(e);
}

/** Runs `fn`, its failures as the API's. */
export async function asApiErrors<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    throw apiErrorOf(e);
  }
}
