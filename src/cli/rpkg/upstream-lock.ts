import type { PackageRevision } from "../../lifecycle/index.js";
import { type PorchTask, revisionTasks } from "../../lifecycle/kpt-trailer.js";
import { parseKptfileText } from "../../merge/kptfile.js";
import type { Repository } from "./repository.js";
import { sameServerRepository } from "./upstream.js";

/** The upstream a revision's Kptfile records, as Porch's `status.upstreamLock` (type git). */
export interface UpstreamLock {
  type: "git";
  git: { repo: string; directory: string; ref: string; commit?: string };
}

/**
 * The upstream each revision carries, read from its Kptfile (`upstreamLock`, else `upstream`): a
 * package cloned by `rpkg clone`, by fan-out or by `kpt pkg get` alike. A revision without one (an
 * upstream package itself) is absent from the map. One Kptfile read per revision.
 */
export async function readUpstreamLocks(
  repo: Repository,
  revisions: readonly PackageRevision[],
): Promise<Map<PackageRevision, UpstreamLock>> {
  const locks = new Map<PackageRevision, UpstreamLock>();
  await Promise.all(
    revisions.map(async (rev) => {
      const file = `${repo.packageDir(rev.package)}/Kptfile`;
      const text = await repo.conn.port.getFile(file, rev.sha);
      if (text === undefined) return;
      let kf: ReturnType<typeof parseKptfileText>;
      try {
        kf = parseKptfileText(text, file);
      } catch {
        return; // An unreadable Kptfile is the render check's to report; the listing goes on.
      }
      const lock = kf.upstreamLock?.git;
      const up = kf.upstream?.git;
      const source = lock?.repo ? lock : up;
      if (!source?.repo) return;
      const git: UpstreamLock["git"] = {
        repo: String(source.repo),
        directory: String(source.directory ?? "/"),
        ref: String(source.ref ?? ""),
      };
      if (lock?.commit) git.commit = String(lock.commit);
      locks.set(rev, { type: "git", git });
    }),
  );
  return locks;
}

/**
 * The two columns `rpkg get -o wide` adds: the upstream package (`OWNER/REPO/PATH` on this server,
 * else the URL and directory) and the upstream revision it carries (`v2` of a tag `hello/v2`, else the
 * ref, else the commit).
 */
export function upstreamColumns(repo: Repository, lock: UpstreamLock | undefined): [string, string] {
  if (!lock) return ["-", "-"];
  const dir = lock.git.directory.replace(/^\/+|\/+$/g, "");
  const same = sameServerRepository(lock.git.repo, repo.conn.info.cloneUrl);
  const where = same ? `${same}${dir ? `/${dir}` : ""}` : `${lock.git.repo}${dir ? `//${dir}` : ""}`;
  const ref = lock.git.ref;
  const revision =
    dir && ref.startsWith(`${dir}/`)
      ? ref.slice(dir.length + 1)
      : ref || (lock.git.commit ?? "-").slice(0, 12);
  return [where, revision];
}

/** How many commits back a revision's tasks are looked for: a draft's history, then its base's. */
const TASK_HISTORY = 200;

/** Each revision's tasks (revisionTasks), from the `kpt:` lines of its history: one git log per revision. */
export async function readTasks(
  repo: Repository,
  revisions: readonly PackageRevision[],
): Promise<Map<PackageRevision, PorchTask[]>> {
  const out = new Map<PackageRevision, PorchTask[]>();
  await Promise.all(
    revisions.map(async (rev) => {
      const history = await repo.conn.port.history(rev.sha, TASK_HISTORY);
      const tasks = revisionTasks(
        history.map((c) => c.message),
        repo.packageDir(rev.package),
        rev.workspace,
      );
      if (tasks.length > 0) out.set(rev, tasks);
    }),
  );
  return out;
}
