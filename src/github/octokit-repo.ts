import type { Octokit } from "@octokit/rest";
import { isPermission, toPermission } from "../api/permission.js";
import type { FileTree } from "../kpt/tree.js";
import { batchAnnotations } from "../lifecycle/check-run.js";
import type { RefInfo } from "../lifecycle/refs.js";
import { asMergeRefused, GitHubError, mapGitHubErrors, statusOf } from "./errors.js";
import type { GitRepo } from "./git-repo.js";
import type { OpenPulls } from "./open-pulls.js";
import type { OwnWrites } from "./own-writes.js";
import type {
  CheckRunInput,
  CheckRunState,
  CommitInfo,
  FileEntry,
  HistoryCommit,
  IssueComment,
  Permission,
  PullRequest,
  PushResult,
  RepoId,
  RepoPort,
  Review,
} from "./port.js";
import {
  parseResponse,
  type RestPull,
  restCheckRunStatus,
  restCollaborator,
  restCollaboratorPermission,
  restLabels,
  restPull,
  restReviewState,
} from "./responses.js";

/** GitHub's other states of a run not started yet (waiting on a deployment, requested, pending) are queued. */
function checkRunStatus(s: string): CheckRunState["status"] {
  return s === "in_progress" || s === "completed" ? s : "queued";
}

function toPull(p: RestPull): PullRequest {
  return {
    number: p.number,
    title: p.title,
    body: p.body ?? "",
    state: p.state === "open" ? "open" : "closed",
    merged: Boolean(p.merged ?? p.merged_at),
    draft: Boolean(p.draft),
    headRef: p.head.ref,
    headSha: p.head.sha,
    headRepo: p.head.repo?.full_name ?? null,
    baseRef: p.base.ref,
    baseSha: p.base.sha,
    labels: p.labels.map((l) => (typeof l === "string" ? l : (l.name ?? ""))).filter(Boolean),
    author: p.user?.login ?? "",
    mergeCommitSha: p.merge_commit_sha,
    ...(p.merged_by ? { mergedBy: p.merged_by.login } : {}),
    url: p.html_url,
    ...(p.created_at ? { createdAt: p.created_at } : {}),
    ...(p.updated_at ? { updatedAt: p.updated_at } : {}),
    ...(p.mergeable !== undefined ? { mergeable: p.mergeable } : {}),
  };
}

/**
 * The pull request a webhook's payload carries, as the door reads one; undefined when the payload does
 * not hold all of it (a test's payload, a review event's fields GitHub leaves out are optional here).
 * What it says is what GitHub said when it sent the event: a job that may run later trusts it only where
 * a change since cannot mislead it.
 */
export function pullOfEvent(raw: unknown): PullRequest | undefined {
  const read = restPull.safeParse(raw);
  return read.success ? toPull(read.data) : undefined;
}

/** A check run as this adapter last saw it: enough to tell which run a new report replaces. */
interface SeenRun {
  id: number;
  name: string;
  annotations: number;
}

function seenRun(r: { id: number; name: string; output?: { annotations_count?: number } | null }): SeenRun {
  return { id: r.id, name: r.name, annotations: r.output?.annotations_count ?? 0 };
}

/**
 * What the door asks of an Octokit: requests, pagination, the REST methods and the token. Probot's
 * Octokit (`context.octokit`, `probot.auth(id)`) and a token's client (`tokenOctokit`) both are one;
 * @octokit/rest's class names the methods, its type the door writes its calls against.
 */
export type RestClient = Pick<Octokit, "request" | "paginate" | "rest" | "auth">;

/**
 * The merges this process has under way, by repository: one at a time. GitHub refuses a merge when
 * another merge moves the base branch under it (405, "Base branch was modified"), and the refused one
 * costs a read of its pull request and the merge again: Porch's registrations of one repository, each
 * approving a proposal at once, paid that for almost half their publishes. Two processes (a fleet) can
 * still race; the publish merges again then (jobs/publish).
 */
const mergeTurns = new Map<string, Promise<unknown>>();

function inTurn<T>(repo: string, merge: () => Promise<T>): Promise<T> {
  const mine = (mergeTurns.get(repo) ?? Promise.resolve()).then(merge);
  const turn = mine.catch(() => undefined);
  mergeTurns.set(repo, turn);
  void turn.then(() => {
    if (mergeTurns.get(repo) === turn) mergeTurns.delete(repo);
  });
  return mine;
}

/** RepoPort over Octokit (metadata) and a GitRepo (content). */
export class OctokitRepo implements RepoPort {
  /**
   * The check runs of each commit this job listed, newest first, kept up to date with the runs it
   * writes: a job that asked whether a head was checked then reports on that head without listing its
   * runs again (one REST call a push). One adapter a job (installation.ts), and a repository's jobs run
   * one at a time, so no other writer of the app's runs comes in between.
   */
  private readonly seenRuns = new Map<string, SeenRun[]>();

  constructor(
    private readonly octokit: RestClient,
    readonly id: RepoId,
    private readonly git: GitRepo,
    /** The app's own runs and comments this process listed and wrote (own-writes.ts); absent in a fleet. */
    private readonly own?: OwnWrites,
    /**
     * The open pull requests of each repository as the API server knows them (open-pulls.ts): listed
     * through it, and told of every write here that changes them. Absent: listed each time.
     */
    private readonly pulls?: OpenPulls,
  ) {}

  private get ownRuns() {
    return this.own?.runs;
  }

  private call<T>(what: string, fn: () => Promise<T>): Promise<T> {
    return mapGitHubErrors(`${what} in ${this.id.owner}/${this.id.repo}`, fn);
  }

  listRefs(): Promise<RefInfo[]> {
    return this.git.lsRemote();
  }

  async listFiles(ref: string, dir = ""): Promise<{ sha: string; files: FileEntry[] }> {
    const sha = await this.git.fetch(ref);
    return { sha, files: await this.git.listFiles(sha, dir) };
  }

  async readTree(
    ref: string,
    dir = "",
  ): Promise<{ sha: string; tree: FileTree; symlinks: string[]; blobs: Map<string, string> }> {
    const sha = await this.git.fetch(ref);
    return { sha, ...(await this.git.readFiles(sha, dir)) };
  }

  async changedPaths(base: string, head: string): Promise<string[]> {
    const known = this.git.changedPathsKnown(base, head);
    if (known) return known;
    // Compared by the commits fetched: a branch name is fetched to a ref of its own, never `base` itself.
    const [b, h] = [await this.git.fetch(base), await this.git.fetch(head)];
    return this.git.changedPaths(b, h);
  }

  async parentChange(sha: string, dir = ""): Promise<{ parent: string | null; paths: string[] }> {
    return this.git.parentChange(await this.git.fetch(sha), dir);
  }

  async commitTree(input: Parameters<RepoPort["commitTree"]>[0]): Promise<PushResult> {
    if (input.parent) await this.git.fetch(input.parent);
    const pushed = await this.git.commitTree(input);
    if (pushed.ok) this.pulls?.wrote(this.id, { kind: "pushed", branch: input.branch, sha: pushed.sha });
    return pushed;
  }

  getPull(number: number): Promise<PullRequest> {
    return this.call(`reading pull request #${number}`, async () => {
      const { data } = await this.octokit.rest.pulls.get({ ...this.id, pull_number: number });
      return toPull(parseResponse(restPull, data, `reading pull request #${number}`));
    });
  }

  listOpenPulls(): Promise<PullRequest[]> {
    return this.pulls ? this.pulls.list(this.id, () => this.#listOpenPulls()) : this.#listOpenPulls();
  }

  #listOpenPulls(): Promise<PullRequest[]> {
    return this.call("listing open pull requests", async () => {
      const pulls = await this.octokit.paginate(this.octokit.rest.pulls.list, {
        ...this.id,
        state: "open",
        per_page: 100,
      });
      return parseResponse(restPull.array(), pulls, "listing open pull requests").map(toPull);
    });
  }

  listPullsFrom(head: string): Promise<PullRequest[]> {
    return this.call(`listing the pull requests from ${head}`, async () => {
      const pulls = await this.octokit.paginate(this.octokit.rest.pulls.list, {
        ...this.id,
        state: "all",
        head: `${this.id.owner}:${head}`,
        per_page: 100,
      });
      return parseResponse(restPull.array(), pulls, `listing the pull requests from ${head}`).map(toPull);
    });
  }

  listRecentlyClosedPulls(): Promise<PullRequest[]> {
    return this.call("listing recently closed pull requests", async () => {
      const { data } = await this.octokit.rest.pulls.list({
        ...this.id,
        state: "closed",
        sort: "updated",
        direction: "desc",
        per_page: 100,
      });
      return parseResponse(restPull.array(), data, "listing recently closed pull requests").map(toPull);
    });
  }

  listPullsOfCommit(sha: string): Promise<PullRequest[]> {
    const what = `listing the pull requests of ${sha.slice(0, 7)}`;
    return this.call(what, async () => {
      const pulls = await this.octokit.paginate(
        this.octokit.rest.repos.listPullRequestsAssociatedWithCommit,
        {
          ...this.id,
          commit_sha: sha,
          per_page: 100,
        },
      );
      return parseResponse(restPull.array(), pulls, what).map(toPull);
    });
  }

  createPull(input: {
    head: string;
    base: string;
    title: string;
    body: string;
    draft?: boolean;
  }): Promise<PullRequest> {
    return this.call(`opening a pull request from ${input.head}`, async () => {
      const { data } = await this.octokit.rest.pulls.create({ ...this.id, ...input });
      const pull = toPull(parseResponse(restPull, data, `opening a pull request from ${input.head}`));
      this.pulls?.wrote(this.id, { kind: "answered", pull });
      return pull;
    });
  }

  async updatePull(
    number: number,
    input: { title?: string; body?: string; state?: "open" | "closed" },
  ): Promise<void> {
    const { data } = await this.call(`updating pull request #${number}`, () =>
      this.octokit.rest.pulls.update({ ...this.id, pull_number: number, ...input }),
    );
    const now = restPull.safeParse(data);
    this.pulls?.wrote(
      this.id,
      now.success ? { kind: "answered", pull: toPull(now.data) } : { kind: "unknown" },
    );
  }

  mergePull(
    number: number,
    input: { sha: string; method: "merge" | "squash" | "rebase"; title?: string; message?: string },
  ): Promise<string> {
    const repo = `${this.octokit.request.endpoint.DEFAULTS.baseUrl}/${this.id.owner}/${this.id.repo}`;
    const merging = inTurn(repo.toLowerCase(), () =>
      this.call(`merging pull request #${number}`, async () => {
        const { data } = await this.octokit.rest.pulls.merge({
          ...this.id,
          pull_number: number,
          sha: input.sha,
          merge_method: input.method,
          ...(input.title ? { commit_title: input.title } : {}),
          ...(input.message ? { commit_message: input.message } : {}),
        });
        this.pulls?.wrote(this.id, { kind: "merged", number });
        return data.sha;
      }),
    );
    return merging.catch((e: unknown) => {
      throw asMergeRefused(e);
    });
  }

  listReviews(number: number): Promise<Review[]> {
    return this.call(`listing reviews of #${number}`, async () => {
      const reviews = await this.octokit.paginate(this.octokit.rest.pulls.listReviews, {
        ...this.id,
        pull_number: number,
        per_page: 100,
      });
      return reviews.map((r) => ({
        id: r.id,
        user: r.user?.login ?? "",
        state: parseResponse(restReviewState, r.state, `review ${r.id} of #${number}`),
        commitId: r.commit_id ?? "",
      }));
    });
  }

  async addLabels(issue: number, labels: string[]): Promise<void> {
    if (labels.length === 0) return;
    const { data } = await this.call(`labelling #${issue}`, () =>
      this.octokit.rest.issues.addLabels({ ...this.id, issue_number: issue, labels }),
    );
    this.#labelled(issue, data);
  }

  async removeLabel(issue: number, label: string): Promise<void> {
    try {
      const { data } = await this.call(`unlabelling #${issue}`, () =>
        this.octokit.rest.issues.removeLabel({ ...this.id, issue_number: issue, name: label }),
      );
      this.#labelled(issue, data);
    } catch (e) {
      if (!(e instanceof GitHubError && e.kind === "not-found")) throw e;
    }
  }

  /** The labels GitHub answered a labelling of `issue` with (all it has now), told to the open pulls known. */
  #labelled(issue: number, answer: unknown): void {
    if (!this.pulls) return;
    const labels = restLabels.safeParse(answer);
    this.pulls.wrote(
      this.id,
      labels.success
        ? { kind: "labels", number: issue, labels: labels.data.map((l) => l.name) }
        : { kind: "unknown" },
    );
  }

  writers(): Promise<string[]> {
    return this.call("listing who may push", async () => {
      const all = await this.octokit.paginate(this.octokit.rest.repos.listCollaborators, {
        ...this.id,
        affiliation: "all",
        per_page: 100,
      });
      return all.flatMap((data) => {
        const c = parseResponse(restCollaborator, data, "listing who may push");
        const p = c.permissions;
        return p?.push || p?.maintain || p?.admin ? [c.login] : [];
      });
    });
  }

  permissionOf(user: string): Promise<Permission> {
    return this.call(`reading ${user}'s permission`, async () => {
      try {
        const { data } = await this.octokit.rest.repos.getCollaboratorPermissionLevel({
          ...this.id,
          username: user,
        });
        // `role_name` names triage and maintain too; a custom role falls back to the base `permission`.
        const read = parseResponse(restCollaboratorPermission, data, `reading ${user}'s permission`);
        const role = read.role_name ?? "";
        return isPermission(role) ? role : toPermission(read.permission);
      } catch (e) {
        if (statusOf(e) === 404) return "none";
        throw e;
      }
    });
  }

  ensureComment(
    issue: number,
    marker: string,
    body: string,
  ): Promise<{ id: number; action: "created" | "updated" | "unchanged" }> {
    return this.call(`writing the comment on #${issue}`, () =>
      this.writeComment(issue, marker, body).catch((e: unknown) => {
        // a comment written or not, not known which: the next question asks GitHub
        this.own?.comments.forget(this.id, issue);
        throw e;
      }),
    );
  }

  private async writeComment(
    issue: number,
    marker: string,
    body: string,
  ): Promise<{ id: number; action: "created" | "updated" | "unchanged" }> {
    const mine = await this.markedComment(issue, marker);
    if (!mine) {
      const { data } = await this.octokit.rest.issues.createComment({
        ...this.id,
        issue_number: issue,
        body,
      });
      this.own?.comments.wrote(this.id, issue, { id: data.id, body });
      return { id: data.id, action: "created" };
    }
    if (mine.body === body) return { id: mine.id, action: "unchanged" };
    try {
      await this.octokit.rest.issues.updateComment({ ...this.id, comment_id: mine.id, body });
    } catch (e) {
      // the comment kept here was deleted on GitHub since (a person's hand): found again by a listing
      if (statusOf(e) !== 404 || !mine.kept) throw e;
      this.own?.comments.forget(this.id, issue);
      return this.writeComment(issue, marker, body);
    }
    this.own?.comments.wrote(this.id, issue, { id: mine.id, body });
    return { id: mine.id, action: "updated" };
  }

  /**
   * The first comment of `issue` holding `marker`: as this process listed and wrote the issue's comments
   * (own-comments.ts, `kept`), else listed from GitHub.
   */
  private async markedComment(
    issue: number,
    marker: string,
  ): Promise<{ id: number; body: string; kept: boolean } | undefined> {
    const known = this.own ? this.own.comments.find(this.id, issue, marker) : "unknown";
    if (known !== "unknown") return known && { ...known, kept: true };
    const found = (await this.listComments(issue)).find((c) => c.body.includes(marker));
    return found && { id: found.id, body: found.body, kept: false };
  }

  listComments(issue: number): Promise<IssueComment[]> {
    return this.call(`reading the comments of #${issue}`, async () => {
      const comments = await this.octokit.paginate(this.octokit.rest.issues.listComments, {
        ...this.id,
        issue_number: issue,
        per_page: 100,
      });
      const all = comments.map((c) => ({
        id: c.id,
        author: c.user?.login ?? "",
        bot: c.user?.type === "Bot" || Boolean(c.performed_via_github_app),
        body: c.body ?? "",
        createdAt: c.created_at,
        updatedAt: c.updated_at,
      }));
      this.own?.comments.listed(this.id, issue, all);
      return all;
    });
  }

  findComment(issue: number, marker: string): Promise<{ id: number; body: string } | undefined> {
    return this.call(`reading the comments of #${issue}`, async () => {
      const found = await this.markedComment(issue, marker);
      return found && { id: found.id, body: found.body };
    });
  }

  async deleteRefIf(ref: string, sha: string): Promise<"deleted" | "gone" | "moved"> {
    const done = await this.git.deleteRefIf(ref, sha);
    if (done === "deleted" && ref.startsWith("refs/heads/"))
      this.pulls?.wrote(this.id, { kind: "deleted", branch: ref.slice("refs/heads/".length) });
    return done;
  }

  async deleteBranch(name: string): Promise<void> {
    // by git, not REST: a push GitHub does not count against the budget, refused by the same rules
    const deleted = await this.git.deleteBranch(name);
    if (deleted.kind !== "refused") {
      this.pulls?.wrote(this.id, { kind: "deleted", branch: name });
      return;
    }
    throw new GitHubError(
      "forbidden",
      `deleting branch ${name} in ${this.id.owner}/${this.id.repo}: GitHub refused the push (${deleted.git.split("\n").slice(-3).join(" / ")}); the repository's rules for this branch must allow its deletion`,
      403,
    );
  }

  createComment(issue: number, body: string): Promise<number> {
    return this.call(`commenting on #${issue}`, async () => {
      const { data } = await this.octokit.rest.issues.createComment({
        ...this.id,
        issue_number: issue,
        body,
      });
      this.own?.comments.wrote(this.id, issue, { id: data.id, body });
      return data.id;
    });
  }

  async react(commentId: number, content: "eyes" | "+1" | "-1" | "rocket" | "confused"): Promise<void> {
    await this.call("reacting to a comment", () =>
      this.octokit.rest.reactions.createForIssueComment({ ...this.id, comment_id: commentId, content }),
    );
  }

  listCheckRuns(headSha: string, own?: readonly string[]): Promise<CheckRunState[]> {
    const known = own && this.ownRuns?.runs(this.id, headSha, own);
    if (known) return Promise.resolve(known);
    return this.call(`listing check runs of ${headSha.slice(0, 7)}`, async () => {
      const runs = await this.octokit.paginate(this.octokit.rest.checks.listForRef, {
        ...this.id,
        ref: headSha,
        per_page: 100,
      });
      this.seenRuns.set(headSha, runs.map(seenRun));
      const states = runs.map((r) => ({
        annotations: r.output?.annotations_count ?? 0,
        id: r.id,
        name: r.name,
        headSha: r.head_sha,
        status: checkRunStatus(parseResponse(restCheckRunStatus, r.status, `check run ${r.id}`)),
        conclusion: r.conclusion ?? null,
        externalId: r.external_id ?? null,
      }));
      this.ownRuns?.listed(this.id, headSha, states);
      return states.map(({ annotations: _, ...state }) => state);
    });
  }

  listCommitStatuses(sha: string): Promise<CheckRunState[]> {
    return this.call(`listing commit statuses of ${sha.slice(0, 7)}`, async () => {
      // The combined status holds the latest status of each context (one page of 100 contexts).
      const { data } = await this.octokit.rest.repos.getCombinedStatusForRef({
        ...this.id,
        ref: sha,
        per_page: 100,
      });
      return data.statuses.map((s) => ({
        id: s.id,
        name: s.context,
        headSha: sha,
        status: s.state === "pending" ? ("in_progress" as const) : ("completed" as const),
        conclusion: s.state === "pending" ? null : s.state === "success" ? "success" : "failure",
        externalId: null,
      }));
    });
  }

  /**
   * The latest run named `name` on `sha`, when it can be updated in place: GitHub appends the annotations
   * of an update to the run's, so a run that already holds some, given a new output, is replaced by a new
   * run of the same name (GitHub shows the latest); else a check reported twice on one head (the draft's
   * render, then the proposal's) showed 1,000 annotations under a summary counting 500.
   */
  private async replaceableRun(
    sha: string,
    name: string,
    newOutput: boolean,
  ): Promise<{ id: number } | undefined> {
    const latest = await this.latestRun(sha, name);
    if (!latest) return undefined;
    return newOutput && latest.annotations > 0 ? undefined : { id: latest.id };
  }

  /**
   * The newest run named `name` on `sha`: as this job listed it, or as this process listed and wrote it
   * (own-check-runs.ts), else asked of GitHub.
   */
  private async latestRun(sha: string, name: string): Promise<SeenRun | undefined> {
    const seen = this.seenRuns.get(sha);
    if (seen) return seen.find((r) => r.name === name);
    const known = this.ownRuns ? this.ownRuns.latest(this.id, sha, name) : "unknown";
    if (known !== "unknown") return known && { ...known, name };
    const runs = await this.octokit.paginate(this.octokit.rest.checks.listForRef, {
      ...this.id,
      ref: sha,
      check_name: name,
      per_page: 100,
    });
    return runs.filter((r) => r.name === name).map(seenRun)[0];
  }

  /** What this job wrote to a run of a commit whose runs it listed: the list stays as GitHub has it. */
  private sawWrite(sha: string, run: SeenRun): void {
    const seen = this.seenRuns.get(sha);
    if (!seen) return;
    const i = seen.findIndex((r) => r.id === run.id);
    if (i >= 0) seen[i] = run;
    else seen.unshift(run);
  }

  upsertCheckRun(input: CheckRunInput): Promise<number> {
    return this.call(`reporting check ${input.name}`, () =>
      this.writeCheckRun(input).catch((e: unknown) => {
        // a run created but not all written, or not known to be: the next question asks GitHub
        this.ownRuns?.forget(this.id, input.headSha);
        throw e;
      }),
    );
  }

  private async writeCheckRun(input: CheckRunInput): Promise<number> {
    const existing = await this.replaceableRun(input.headSha, input.name, input.title !== undefined);
    const batches = batchAnnotations(input.annotations ?? []);
    const output = (annotations: CheckRunInput["annotations"]) =>
      input.title !== undefined
        ? {
            title: input.title,
            summary: input.summary ?? "",
            text: input.text,
            annotations: annotations ? [...annotations] : undefined,
          }
        : undefined;
    const fields = {
      status: input.status,
      ...(input.conclusion ? { conclusion: input.conclusion } : {}),
      ...(input.externalId ? { external_id: input.externalId } : {}),
    };
    let id: number;
    if (existing) {
      id = existing.id;
      await this.octokit.rest.checks.update({
        ...this.id,
        check_run_id: id,
        ...fields,
        output: output(batches[0] ?? []),
      });
    } else {
      const { data } = await this.octokit.rest.checks.create({
        ...this.id,
        name: input.name,
        head_sha: input.headSha,
        ...fields,
        output: output(batches[0] ?? []),
      });
      id = data.id;
    }
    for (const batch of batches.slice(1)) {
      await this.octokit.rest.checks.update({ ...this.id, check_run_id: id, output: output(batch) });
    }
    if (input.title !== undefined || !existing) {
      this.sawWrite(input.headSha, { id, name: input.name, annotations: input.annotations?.length ?? 0 });
    }
    this.ownRuns?.wrote(this.id, input.headSha, {
      id,
      name: input.name,
      status: input.status,
      ...(input.conclusion ? { conclusion: input.conclusion } : {}),
      ...(input.externalId ? { externalId: input.externalId } : {}),
      // a new output's annotations, added to the run's (a replaced run is a new one: none before)
      ...(input.title !== undefined ? { annotations: input.annotations?.length ?? 0 } : {}),
    });
    return id;
  }

  async createTag(
    name: string,
    sha: string,
    dropping?: { branch: string; at: string },
  ): Promise<"created" | "exists"> {
    // by git, not REST: a push GitHub does not count against the budget, refused by the same rules
    const pushed = await this.git.createTag(name, sha, dropping);
    if (pushed.kind === "created" && dropping)
      this.pulls?.wrote(this.id, { kind: "deleted", branch: dropping.branch });
    if (pushed.kind !== "refused") return pushed.kind;
    throw new GitHubError(
      "forbidden",
      `tagging ${name} in ${this.id.owner}/${this.id.repo}: GitHub refused the push of the tag (${pushed.git.split("\n").slice(-3).join(" / ")}); the repository's rules for tags must allow it`,
      403,
    );
  }

  async getFile(path: string, ref: string): Promise<string | undefined> {
    // a commit the cache clone holds is read there: no request, none of the budget
    const held = await this.git.heldFile(ref, path);
    if (held !== null) return held;
    return this.call(`reading ${path}@${ref}`, async () => {
      try {
        const { data } = await this.octokit.rest.repos.getContent({ ...this.id, path, ref });
        if (Array.isArray(data) || data.type !== "file" || !("content" in data)) return undefined;
        return Buffer.from(data.content, "base64").toString("utf8");
      } catch (e) {
        if (statusOf(e) === 404) return undefined;
        throw e;
      }
    });
  }

  async listCommits(base: string, head: string): Promise<CommitInfo[]> {
    const [b, h] = [await this.git.fetch(base), await this.git.fetch(head)];
    const commits = await this.git.log(b, h);
    return commits.map((c) => ({ sha: c.sha, author: { name: c.name, email: c.email } }));
  }

  commitMessages(shas: readonly string[]): Promise<Map<string, string>> {
    return this.git.commitMessages(shas);
  }

  async history(head: string, limit: number): Promise<HistoryCommit[]> {
    return this.git.history(await this.git.fetch(head), limit);
  }

  async commitTime(sha: string): Promise<Date> {
    return this.git.commitTime(await this.git.fetch(sha));
  }

  async addedAt(head: string, dir: string): Promise<Map<string, Date>> {
    return this.git.addedAt(await this.git.fetch(head), dir);
  }

  async lastChanges(head: string, dirs: readonly string[], since?: string): Promise<Map<string, string>> {
    const h = await this.git.fetch(head);
    // an earlier head this clone no longer has (or never fetched): the whole history instead
    const s = since === undefined ? undefined : await this.git.resolveCommit(since);
    return this.git.lastChanges(h, dirs, s);
  }

  /** The open issue (not a pull request) labelled `label` whose body carries `marker`. */
  private async openIssueMarked(input: { label: string; marker: string }) {
    const { data: issues } = await this.octokit.rest.issues.listForRepo({
      ...this.id,
      state: "open",
      labels: input.label,
      per_page: 100,
    });
    return issues.find((i) => !i.pull_request && (i.body ?? "").includes(input.marker));
  }

  findIssue(input: {
    label: string;
    marker: string;
  }): Promise<{ number: number; body: string; labels: string[] } | undefined> {
    return this.call(`finding the issue labelled ${input.label}`, async () => {
      const mine = await this.openIssueMarked(input);
      if (!mine) return undefined;
      const labels = mine.labels.map((l) => (typeof l === "string" ? l : (l.name ?? ""))).filter(Boolean);
      return { number: mine.number, body: mine.body ?? "", labels };
    });
  }

  ensureIssue(input: {
    marker: string;
    label: string;
    title: string;
    body: string;
  }): Promise<{ number: number; action: "created" | "updated" | "unchanged" }> {
    return this.call(`writing issue "${input.title}"`, async () => {
      const mine = await this.openIssueMarked(input);
      if (!mine) {
        const { data } = await this.octokit.rest.issues.create({
          ...this.id,
          title: input.title,
          body: input.body,
          labels: [input.label],
        });
        return { number: data.number, action: "created" as const };
      }
      if (mine.body === input.body && mine.title === input.title)
        return { number: mine.number, action: "unchanged" as const };
      await this.octokit.rest.issues.update({
        ...this.id,
        issue_number: mine.number,
        title: input.title,
        body: input.body,
      });
      return { number: mine.number, action: "updated" as const };
    });
  }
}
