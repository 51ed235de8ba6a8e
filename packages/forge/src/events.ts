import type { ForgeCore } from "./context.js";
import { copyHead } from "./forks.js";
import { ZERO_SHA } from "./git.js";
import { isoTime, nodeId } from "./http.js";
import { checkSuiteShape } from "./shapes/checks.js";
import { fullPull } from "./shapes/pull.js";
import { repoShape } from "./shapes/repo.js";
import { simpleUser } from "./shapes/user.js";
import type { RepoRec, UserRec } from "./types.js";

/** A ref that moved: `before`/`after` are ZERO_SHA when it did not exist. */
export interface RefChange {
  ref: string;
  before: string;
  after: string;
}

/** GitHub lists at most 20 commits in a push payload. */
const MAX_PUSH_COMMITS = 20;

/** Sends a repository event to every installation covering the repository (or only `onlyAppId`'s). */
export function emitRepoEvent(
  core: ForgeCore,
  repo: RepoRec,
  event: string,
  body: Record<string, unknown>,
  sender: UserRec,
  onlyAppId?: number,
): void {
  for (const inst of core.store.installationsFor(repo)) {
    const app = core.store.app(inst.appId);
    if (!app || (onlyAppId !== undefined && app.id !== onlyAppId)) continue;
    const payload = {
      ...body,
      repository: repoShape(core, repo, { unixTimes: event === "push", webhook: true }),
      sender: simpleUser(core, sender),
      installation: { id: inst.id, node_id: nodeId("Installation", inst.id) },
    };
    core.webhooks.emit(app, event, payload, { installationId: inst.id, repositoryId: repo.id });
  }
}

function shortRef(ref: string): { name: string; type: "branch" | "tag" } | null {
  if (ref.startsWith("refs/heads/")) return { name: ref.slice(11), type: "branch" };
  if (ref.startsWith("refs/tags/")) return { name: ref.slice(10), type: "tag" };
  return null;
}

async function pushCommit(core: ForgeCore, repo: RepoRec, sha: string): Promise<Record<string, unknown>> {
  const dir = core.git.dir(repo.ownerLogin, repo.name);
  const c = await core.git.commit(dir, sha);
  if (!c) throw new Error(`commit ${sha} missing in ${repo.ownerLogin}/${repo.name}`);
  const files = await core.git.diff(dir, c.parents[0] ?? null, sha);
  const person = (p: { name: string; email: string }) => {
    const u = core.store.data.users.find((x) => x.email === p.email);
    return { name: p.name, email: p.email, ...(u ? { username: u.login } : {}) };
  };
  return {
    id: sha,
    tree_id: c.tree,
    distinct: true,
    message: c.message.replace(/\n$/, ""),
    timestamp: c.committer.date,
    url: `${core.urls.web}/${repo.ownerLogin}/${repo.name}/commit/${sha}`,
    author: person(c.author),
    committer: person(c.committer),
    added: files.filter((f) => f.status === "added").map((f) => f.filename),
    removed: files.filter((f) => f.status === "removed").map((f) => f.filename),
    modified: files.filter((f) => f.status !== "added" && f.status !== "removed").map((f) => f.filename),
  };
}

/**
 * Everything GitHub sends when refs move (by git push or REST): `create`/`delete`, `push`, and
 * `pull_request.synchronize` (or `closed`, when a head branch is deleted) for open pull requests.
 */
export async function onRefChanges(
  core: ForgeCore,
  repo: RepoRec,
  changes: RefChange[],
  pusher: UserRec,
): Promise<void> {
  if (changes.length === 0) return;
  const dir = core.git.dir(repo.ownerLogin, repo.name);
  repo.pushedAt = isoTime(core.store.now());
  const tips = await core.git.refs(dir);
  for (const ch of changes) {
    const short = shortRef(ch.ref);
    const created = ch.before === ZERO_SHA;
    const deleted = ch.after === ZERO_SHA;
    if (short && created) {
      emitRepoEvent(
        core,
        repo,
        "create",
        {
          ref: short.name,
          ref_type: short.type,
          master_branch: repo.defaultBranch,
          description: repo.description,
          pusher_type: "user",
        },
        pusher,
      );
    }
    if (short && deleted) {
      emitRepoEvent(
        core,
        repo,
        "delete",
        { ref: short.name, ref_type: short.type, pusher_type: "user" },
        pusher,
      );
    }
    let commits: Record<string, unknown>[] = [];
    if (!deleted) {
      const others = [...tips].filter(([r]) => r !== ch.ref).map(([, sha]) => sha);
      const exclude = created ? others : [ch.before];
      const shas = await core.git.revList(dir, ch.after, exclude).catch(() => [] as string[]);
      commits = await Promise.all(shas.slice(-MAX_PUSH_COMMITS).map((s) => pushCommit(core, repo, s)));
    }
    const forced = !created && !deleted && !(await core.git.isAncestor(dir, ch.before, ch.after));
    // A tag names a tag object; the head commit is the commit it points at.
    const peeled = deleted ? null : ((await core.git.resolve(dir, ch.after)) ?? ch.after);
    const headCommit = peeled ? (commits.at(-1) ?? (await pushCommit(core, repo, peeled))) : null;
    const html = `${core.urls.web}/${repo.ownerLogin}/${repo.name}`;
    emitRepoEvent(
      core,
      repo,
      "push",
      {
        ref: ch.ref,
        before: ch.before,
        after: ch.after,
        pusher: { name: pusher.login, email: pusher.email ?? `${pusher.login}@users.noreply.localhost` },
        created,
        deleted,
        forced,
        base_ref: null,
        compare: created
          ? `${html}/compare/${encodeURIComponent(short?.name ?? ch.ref)}`
          : `${html}/compare/${ch.before.slice(0, 12)}...${ch.after.slice(0, 12)}`,
        commits,
        head_commit: headCommit,
      },
      pusher,
    );
    if (short?.type === "branch" && !deleted) await requestCheckSuites(core, repo, short.name, ch, pusher);
    if (short?.type === "branch") await onBranchMoved(core, repo, short.name, ch, pusher);
  }
  core.store.saveSoon();
}

/** GitHub asks every installed app with checks permission to run its checks on a new head. */
async function requestCheckSuites(
  core: ForgeCore,
  repo: RepoRec,
  branch: string,
  ch: RefChange,
  sender: UserRec,
): Promise<void> {
  const head = await core.git.commit(core.git.dir(repo.ownerLogin, repo.name), ch.after);
  for (const inst of core.store.installationsFor(repo)) {
    const app = core.store.app(inst.appId);
    if (!app) continue;
    let suite = core.store.data.checkSuites.find(
      (s) => s.repoId === repo.id && s.appId === app.id && s.headSha === ch.after,
    );
    if (suite) continue;
    const now = isoTime(core.store.now());
    suite = {
      id: core.store.nextId(),
      repoId: repo.id,
      appId: app.id,
      headSha: ch.after,
      headBranch: branch,
      before: ch.before,
      after: ch.after,
      createdAt: now,
      updatedAt: now,
    };
    core.store.data.checkSuites.push(suite);
    const payload = {
      action: "requested",
      check_suite: checkSuiteShape(core, repo, suite, head, { webhook: true }),
      repository: repoShape(core, repo, { webhook: true }),
      sender: simpleUser(core, sender),
      installation: { id: inst.id, node_id: nodeId("Installation", inst.id) },
    };
    core.webhooks.emit(app, "check_suite", payload, { installationId: inst.id, repositoryId: repo.id });
  }
}

async function onBranchMoved(
  core: ForgeCore,
  repo: RepoRec,
  branch: string,
  ch: RefChange,
  sender: UserRec,
): Promise<void> {
  const prs = core.store.data.issues.filter(
    (i) => i.state === "open" && i.pull && i.pull.headRepoId === repo.id && i.pull.headRef === branch,
  );
  for (const issue of prs) {
    const pull = issue.pull!;
    // A fork's push moves pull requests of the base repository: its events come from there.
    const base = core.store.repoById(issue.repoId) ?? repo;
    if (base.id !== repo.id && ch.after !== ZERO_SHA)
      await copyHead(core, base, repo, ch.after, issue.number);
    const now = isoTime(core.store.now());
    issue.updatedAt = now;
    if (ch.after === ZERO_SHA) {
      issue.state = "closed";
      issue.closedAt = now;
      emitPullEvent(core, base, "closed", await fullPull(core, base, issue), issue.number, sender);
      continue;
    }
    const before = pull.headSha;
    pull.headSha = ch.after;
    emitPullEvent(core, base, "synchronize", await fullPull(core, base, issue), issue.number, sender, {
      before,
      after: ch.after,
    });
  }
}

export function emitPullEvent(
  core: ForgeCore,
  repo: RepoRec,
  action: string,
  pullRequest: Record<string, unknown>,
  number: number,
  sender: UserRec,
  extra: Record<string, unknown> = {},
): void {
  emitRepoEvent(core, repo, "pull_request", { action, number, pull_request: pullRequest, ...extra }, sender);
}
