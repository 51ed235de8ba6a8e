import { readKptfileStruct } from "../kpt/kptfile.js";
import type { PackageRevision } from "../lifecycle/index.js";
import { type PorchTask, type PublishInfo, publishInfo, revisionTasks } from "../lifecycle/kpt-trailer.js";
import { hasUpstream, upstreamOf } from "../merge/upstream.js";
import type { PackageMetadata } from "./objects.js";
import { readinessOf } from "./readiness.js";
import type { Repository } from "./repository.js";

/** The upstream a revision's Kptfile records, as Porch's `status.upstreamLock` (type git). */
export interface UpstreamLock {
  type: "git";
  git: { repo: string; directory: string; ref: string; commit?: string };
}

/** What a revision's Kptfile says of its upstream: a git lock (Porch's), or an OCI or tarball source. */
export interface RevisionUpstream {
  lock?: UpstreamLock;
  /** An image or tarball source (porchlight's annotations, or kpt's `upstream.oci`): where, and at what. */
  source?: { where: string; revision: string };
}

/** A Kptfile's text at a commit (undefined where there is none). */
export type KptfileReader = (file: string, sha: string) => Promise<string | undefined>;

/**
 * Reads Kptfiles of `repo` at commits, each file and commit once however many readers ask (the upstream
 * and the package metadata of one revision read the same file).
 */
export function kptfileReader(repo: Repository): KptfileReader {
  const read = new Map<string, Promise<string | undefined>>();
  return (file, sha) => {
    const key = `${sha}:${file}`;
    let text = read.get(key);
    if (!text) {
      text = repo.conn.port.getFile(file, sha);
      read.set(key, text);
    }
    return text;
  };
}

/**
 * The upstream each revision carries, read from its Kptfile (`upstreamLock`, else `upstream`): a
 * package cloned by `rpkg clone`, by fan-out or by `kpt pkg get` alike, from git, an image or a
 * tarball. A revision without one (an upstream package itself) is absent from the map. One Kptfile
 * read per revision.
 */
export async function readUpstreams(
  repo: Repository,
  revisions: readonly PackageRevision[],
  read: KptfileReader = kptfileReader(repo),
): Promise<Map<PackageRevision, RevisionUpstream>> {
  const out = new Map<PackageRevision, RevisionUpstream>();
  await Promise.all(
    revisions.map(async (rev) => {
      const file = `${repo.packageDir(rev.package)}/Kptfile`;
      const text = await read(file, rev.sha);
      if (text === undefined) return;
      const found = upstreamOfKptfile(text, file);
      if (found) out.set(rev, found);
    }),
  );
  return out;
}

/**
 * Porch's `spec.packageMetadata` of each revision: its root Kptfile's `metadata.labels` and
 * `metadata.annotations` (values as text; an empty object where the Kptfile has neither, as Porch
 * shows it), and its readiness gates and conditions (readiness.ts). A revision without a readable
 * Kptfile is absent. One Kptfile read per revision.
 */
export async function readPackageMetadata(
  repo: Repository,
  revisions: readonly PackageRevision[],
  read: KptfileReader = kptfileReader(repo),
): Promise<Map<PackageRevision, PackageMetadata>> {
  const out = new Map<PackageRevision, PackageMetadata>();
  await Promise.all(
    revisions.map(async (rev) => {
      const file = `${repo.packageDir(rev.package)}/Kptfile`;
      const text = await read(file, rev.sha);
      if (text === undefined) return;
      let kf: ReturnType<typeof readKptfileStruct>;
      try {
        kf = readKptfileStruct(text, file);
      } catch {
        return; // An unreadable Kptfile is the render check's to report; the listing goes on.
      }
      const meta: PackageMetadata = {};
      const labels = textMap(kf.metadata?.labels);
      const annotations = textMap(kf.metadata?.annotations);
      if (labels) meta.labels = labels;
      if (annotations) meta.annotations = annotations;
      meta.readiness = readinessOf(kf);
      out.set(rev, meta);
    }),
  );
  return out;
}

/** A YAML mapping's entries as text (a number or boolean as written), or undefined when none. */
function textMap(value: unknown): Record<string, string> | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const entries = Object.entries(value).flatMap(([k, v]) =>
    v === null || v === undefined || typeof v === "object" ? [] : [[k, String(v)] as const],
  );
  return entries.length > 0 ? Object.fromEntries(entries) : undefined;
}

/** The upstream locks alone (Porch's `status.upstreamLock`, git only). */
export async function readUpstreamLocks(
  repo: Repository,
  revisions: readonly PackageRevision[],
): Promise<Map<PackageRevision, UpstreamLock>> {
  const locks = new Map<PackageRevision, UpstreamLock>();
  for (const [rev, up] of await readUpstreams(repo, revisions)) if (up.lock) locks.set(rev, up.lock);
  return locks;
}

function upstreamOfKptfile(text: string, file: string): RevisionUpstream | undefined {
  let kf: ReturnType<typeof readKptfileStruct>;
  try {
    kf = readKptfileStruct(text, file);
  } catch {
    return undefined; // An unreadable Kptfile is the render check's to report; the listing goes on.
  }
  const lock = kf.upstreamLock?.git;
  const up = kf.upstream?.git;
  const source = lock?.repo ? lock : up;
  if (source?.repo) {
    const git: UpstreamLock["git"] = {
      repo: String(source.repo),
      directory: String(source.directory ?? "/"),
      ref: String(source.ref ?? ""),
    };
    if (lock?.commit) git.commit = String(lock.commit);
    return { lock: { type: "git", git } };
  }
  if (!hasUpstream(kf)) return undefined;
  try {
    // an image or a tarball: the source as recorded, at the digest it resolved to
    const info = upstreamOf(new Map([["Kptfile", Buffer.from(text)]]), file.replace(/\/Kptfile$/, ""));
    const dir = info.directory.replace(/^\/+|\/+$/g, "");
    const at = info.lockCommit ?? info.ref;
    return {
      source: {
        where: `${info.repo}${dir ? `//${dir}` : ""}`,
        revision: info.ref && !info.ref.startsWith("sha256:") ? info.ref : (at || "-").slice(0, 19),
      },
    };
  } catch {
    return undefined;
  }
}

/**
 * The two columns `rpkg get -o wide` adds: the upstream package (`OWNER/REPO/PATH` on this server,
 * else the URL and directory) and the upstream revision it carries (`v2` of a tag `hello/v2`, else the
 * ref, else the commit).
 */
export function upstreamColumns(repo: Repository, upstream: RevisionUpstream | undefined): [string, string] {
  if (upstream?.source) return [upstream.source.where, upstream.source.revision];
  const lock = upstream?.lock;
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

/**
 * Each revision's tasks (revisionTasks) and, for a published one, who published it and when
 * (publishInfo), from its history: one git log per revision, of the commits the clone has.
 */
export async function readHistories(
  repo: Repository,
  revisions: readonly PackageRevision[],
): Promise<{ tasks: Map<PackageRevision, PorchTask[]>; published: Map<PackageRevision, PublishInfo> }> {
  const tasks = new Map<PackageRevision, PorchTask[]>();
  const published = new Map<PackageRevision, PublishInfo>();
  await Promise.all(
    revisions.map(async (rev) => {
      const history = await repo.conn.port.history(rev.sha, TASK_HISTORY);
      const dir = repo.packageDir(rev.package);
      const found = revisionTasks(
        history.map((c) => c.message),
        dir,
        rev.workspace,
      );
      if (found.length > 0) tasks.set(rev, found);
      // Porch's LifecycleIsPublished: a revision proposed for deletion is still published
      if (rev.lifecycle !== "Published" && rev.lifecycle !== "DeletionProposed") return;
      const info = publishInfo(history, dir, rev.ref.startsWith("refs/tags/"));
      if (info) published.set(rev, info);
    }),
  );
  return { tasks, published };
}

/** `OWNER/REPO` of a clone URL on the same server as `like` (`https://HOST/OWNER/REPO[.git]`). */
export function sameServerRepository(url: string, like: string): string | undefined {
  let u: URL;
  let l: URL;
  try {
    u = new URL(url);
    l = new URL(like);
  } catch {
    return undefined;
  }
  if (u.host !== l.host) return undefined;
  const m = /^\/?(.*\/)?([^/]+)\/([^/]+?)(\.git)?\/?$/.exec(u.pathname);
  return m ? `${m[2]}/${m[3]}` : undefined;
}
