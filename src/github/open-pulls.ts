import type { PullRequest, RepoId } from "./port.js";

/**
 * What a write of this process did to a repository's pull requests, as GitHub answered it: a pull
 * request opened or edited (as it is now), one merged, an issue's labels now, a branch pushed to a
 * commit or deleted, or something not known (the next reading lists them again).
 */
export type PullChange =
  | { kind: "answered"; pull: PullRequest }
  | { kind: "merged"; number: number }
  | { kind: "labels"; number: number; labels: string[] }
  | { kind: "pushed"; branch: string; sha: string }
  | { kind: "deleted"; branch: string }
  | { kind: "unknown" };

/** A pull request merged: final, no event about it is newer than its merge (GitHub never reopens one). */
const MERGED = "merged";

/** Pull requests of a repository known closed, kept at most (the oldest let go first). */
const CLOSED_KEPT = 1024;

/** An open pull request as known, and whether this process changed it after GitHub's `updatedAt` of it. */
interface KnownPull {
  pull: PullRequest;
  /** A write of this process changed it (labels, its head) and GitHub's time of that change is not known. */
  ahead: boolean;
}

interface Known {
  open: Map<number, KnownPull>;
  /** Closed ones by number: when GitHub last updated them (RFC 3339), or MERGED. */
  closed: Map<number, string>;
  /** When the listing this state starts from was asked (this process's clock). */
  listedAt: number;
  /** The state is what GitHub would list: a listing, with every change since applied. */
  sure: boolean;
  /** Counts the changes applied: a listing asked before one is not kept. */
  changes: number;
}

/**
 * The open pull requests of each repository as this process knows them (the API server's): a listing
 * of GitHub's, kept with every change heard since, so that a reading does not list them again after
 * each change. A change is heard from the API's own writes (the pull requests they open, edit, label,
 * merge or close, answered by GitHub with what they are now: OctokitRepo tells this) and from the app's
 * `pull_request` webhooks (their payloads carry the pull request; `updated_at` orders them against what
 * is known, so a late event never undoes a newer state). What cannot be placed in that order (an event
 * of a pull request this listing did not hold, two different states in the same second, a push to a
 * base branch, a head branch deleted, another replica's write) makes the repository's listing asked
 * again, as a conditional request. A listing is trusted for `trustMs()` (the index's max age; 0: always
 * asked, as `porchlight api` without webhooks does), so a change no webhook told is seen as the index
 * sees it. Pull requests are not a token's: the API answers them only to a caller its read access
 * lets read the repository, as it answers the index's revisions.
 */
export class OpenPulls {
  readonly #known = new Map<string, Known>();

  constructor(
    private readonly trustMs: () => number,
    private readonly opts: {
      /** The clock listings are dated by (tests set it). */
      now?: () => number;
      /** Told of each change a write of this process made (`wrote`): a fleet's replica tells the others. */
      tell?: (full: string, change: PullChange) => void;
    } = {},
  ) {}

  private now(): number {
    return (this.opts.now ?? Date.now)();
  }

  static #key(repo: RepoId | string): string {
    return (typeof repo === "string" ? repo : `${repo.owner}/${repo.repo}`).toLowerCase();
  }

  #entry(repo: RepoId | string): Known {
    const key = OpenPulls.#key(repo);
    let k = this.#known.get(key);
    if (!k) {
      k = { open: new Map(), closed: new Map(), listedAt: 0, sure: false, changes: 0 };
      this.#known.set(key, k);
    }
    return k;
  }

  /**
   * The open pull requests of `repo`, newest first as GitHub lists them: as known when a trusted listing
   * and the changes since say, else `ask`ed (GitHub's listing) and kept, unless a change was heard while
   * it was asked (then the next reading asks again).
   */
  async list(repo: RepoId, ask: () => Promise<PullRequest[]>): Promise<PullRequest[]> {
    const k = this.#known.get(OpenPulls.#key(repo));
    const trust = this.trustMs();
    if (k?.sure && trust > 0 && this.now() - k.listedAt <= trust)
      return [...k.open.values()].sort((a, b) => b.pull.number - a.pull.number).map((p) => copy(p.pull));
    const asked = this.now();
    const before = k?.changes ?? 0;
    const pulls = await ask();
    const after = this.#entry(repo);
    if (after.changes === before) {
      after.open = new Map(pulls.map((p) => [p.number, { pull: copy(p), ahead: false }]));
      for (const p of pulls) after.closed.delete(p.number);
      after.listedAt = asked;
      after.sure = true;
    }
    return pulls;
  }

  /**
   * A write of this process changed `repo`'s pull requests (OctokitRepo tells each): applied, and told
   * on (`tell`: the other replicas of a fleet, which apply it as `told`).
   */
  wrote(repo: RepoId, change: PullChange): void {
    this.#apply(repo, change);
    this.opts.tell?.(OpenPulls.#key(repo), change);
  }

  /** Another replica's write changed `repo`'s pull requests so (its `wrote`, told through the fleet). */
  told(repo: RepoId | string, change: PullChange): void {
    this.#apply(repo, change);
  }

  #apply(repo: RepoId | string, change: PullChange): void {
    const k = this.#entry(repo);
    const full = OpenPulls.#key(repo);
    switch (change.kind) {
      case "answered":
        this.#now(k, change.pull);
        return;
      case "merged":
        this.#close(k, change.number, MERGED);
        return;
      case "labels": {
        const known = k.open.get(change.number);
        if (known) this.#open(k, { ...known.pull, labels: [...change.labels] }, true);
        return;
      }
      case "pushed":
        // a pull request into the branch may be merged by the push (GitHub marks it so): not known here
        if (into(k, change.branch)) this.unsure(full);
        else
          for (const known of [...k.open.values()])
            if (from(full, known.pull, change.branch))
              this.#open(k, { ...known.pull, headSha: change.sha }, true);
        return;
      case "deleted":
        // GitHub closes the pull requests from the branch and into it
        if (into(k, change.branch) || [...k.open.values()].some((p) => from(full, p.pull, change.branch)))
          this.unsure(full);
        return;
      case "unknown":
        this.unsure(full);
    }
  }

  /**
   * A `pull_request` webhook's pull request (`action`, as GitHub names it), as GitHub sent it: applied
   * when its `updatedAt` places it after what is known, let go when before; asked again when unsure.
   */
  heard(repo: RepoId | string, action: string, pull: PullRequest): void {
    const k = this.#entry(repo);
    const verdict = placed(k, action, pull);
    if (verdict === "unsure") this.unsure(repo);
    else if (verdict === "apply") this.#now(k, pull);
  }

  /** What is known of `repo` may be out of date (another replica's write): its listing is asked again. */
  unsure(repo: RepoId | string): void {
    const k = this.#entry(repo);
    k.sure = false;
    k.changes++;
  }

  /** Every repository's listing asked again (a fleet's notices missed). */
  unsureAll(): void {
    for (const k of this.#known.values()) {
      k.sure = false;
      k.changes++;
    }
  }

  /** `pull` as GitHub says it is now: open, or closed (merged, final) as of its `updatedAt`. */
  #now(k: Known, pull: PullRequest): void {
    if (pull.state === "open") this.#open(k, pull, false);
    else this.#close(k, pull.number, pull.merged ? MERGED : (pull.updatedAt ?? ""));
  }

  #open(k: Known, pull: PullRequest, ahead: boolean): void {
    k.open.set(pull.number, { pull: copy(pull), ahead });
    k.closed.delete(pull.number);
    k.changes++;
  }

  #close(k: Known, number: number, at: string): void {
    k.open.delete(number);
    k.closed.delete(number);
    k.closed.set(number, at);
    while (k.closed.size > CLOSED_KEPT) {
      const oldest = k.closed.keys().next().value;
      if (oldest === undefined) break;
      k.closed.delete(oldest);
    }
    k.changes++;
  }
}

/**
 * Where a webhook's pull request stands against what is known of it: after it ("apply"), before it or
 * the same ("ignore"), or not to be placed ("unsure": the listing is asked again).
 */
function placed(k: Known, action: string, pull: PullRequest): "apply" | "ignore" | "unsure" {
  const at = Date.parse(pull.updatedAt ?? "");
  if (Number.isNaN(at)) return "unsure";
  const closed = k.closed.get(pull.number);
  if (closed === MERGED) return "ignore";
  const known = k.open.get(pull.number);
  if (known) {
    const was = Date.parse(known.pull.updatedAt ?? "");
    if (Number.isNaN(was)) return "unsure";
    if (at < was) return "ignore";
    const same = sameListed(known.pull, pull);
    // the same second: the state before a change of this process's, or one GitHub sent twice; or its
    // close, which nothing but a reopening in that second would come after
    if (at === was && pull.state === "closed" && action === "closed") return "apply";
    if (at === was) return same || known.ahead ? "ignore" : "unsure";
    // later than a change of this process's GitHub has not dated: whether it holds that change
    return known.ahead && !same ? "unsure" : "apply";
  }
  if (closed === "") return pull.state === "open" ? "unsure" : "apply";
  if (closed !== undefined) {
    const was = Date.parse(closed);
    // reopened the second it was closed, or the state before the close: not known which
    if (at === was && pull.state === "open") return "unsure";
    return at > was ? "apply" : "ignore";
  }
  // open, and not in the listing: opened after it, or closed before it and told late
  return pull.state === "open" && action !== "opened" ? "unsure" : "apply";
}

/** An open pull request into `branch`. */
function into(k: Known, branch: string): boolean {
  return [...k.open.values()].some((p) => p.pull.baseRef === branch);
}

/** Pull request `pull` is from `branch` of repository `full` itself (not a fork's branch of that name). */
function from(full: string, pull: PullRequest, branch: string): boolean {
  return pull.headRef === branch && (pull.headRepo === null || pull.headRepo.toLowerCase() === full);
}

function copy(p: PullRequest): PullRequest {
  return { ...p, labels: [...p.labels] };
}

/** Whether two states of a pull request list alike in what a listing of revisions reads of it. */
function sameListed(a: PullRequest, b: PullRequest): boolean {
  return (
    a.state === b.state &&
    a.draft === b.draft &&
    a.merged === b.merged &&
    a.headRef === b.headRef &&
    a.headSha === b.headSha &&
    a.headRepo === b.headRepo &&
    a.baseRef === b.baseRef &&
    a.mergeCommitSha === b.mergeCommitSha &&
    [...a.labels].sort().join("\n") === [...b.labels].sort().join("\n")
  );
}
