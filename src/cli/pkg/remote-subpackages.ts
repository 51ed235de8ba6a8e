import { type PlainKptfile, readKptfileStruct } from "../../kpt/kptfile.js";
import type { FileTree } from "../../kpt/tree.js";
import { formatKptfile, mergeKptfile } from "../../merge/kptfile.js";
import { dirOf, join, KPTFILE, within } from "../../merge/layout.js";
import { openUpstream, UpstreamError, type UpstreamOptions } from "../../porch/upstream.js";

/**
 * kpt's `pkg get` fetches, after the package, every remote subpackage in it — a directory whose Kptfile
 * names an `upstream` and no `upstreamLock` — from that upstream, and then those the fetched packages
 * hold in turn (internal/util/get fetchPackages, internal/util/fetch at v1.0.0-beta.56):
 *
 * - the upstream package's files are copied into the directory over what is there, its Kptfile only
 *   when the directory has none;
 * - the directory's Kptfile is merged with the fetched one as an update with no origin (name and
 *   upstream stay, pipeline, info, … come from upstream), then given an `upstreamLock`: the repository
 *   and directory as the Kptfile named them, the ref as resolved (`DIR/v1` when that tag exists), and
 *   the commit.
 *
 * `tree` holds the fetched package (paths relative to it); the result adds the remote subpackages.
 */
export async function withRemoteSubpackages(tree: FileTree, opts: UpstreamOptions = {}): Promise<FileTree> {
  const out: FileTree = new Map(tree);
  const stack = directSubpackages(out, "");
  for (let dir = stack.pop(); dir !== undefined; dir = stack.pop()) {
    const kfPath = join(dir, KPTFILE);
    const kf = readKptfileStruct(out.get(kfPath)?.toString("utf8") ?? "", kfPath);
    if (kf.upstream && !kf.upstreamLock) {
      await fetchInto(out, dir, kf, opts).catch((err: unknown) => {
        if (!(err instanceof UpstreamError) || err.message.startsWith(`${kfPath}:`)) throw err;
        throw new UpstreamError(
          `${kfPath}: fetching the remote subpackage ${dir} (its Kptfile names an upstream and no upstreamLock): ${err.message}`,
          err.kptText,
        );
      });
    }
    stack.push(...directSubpackages(out, dir));
  }
  return out;
}

/** The package directories right below `dir`: holding a Kptfile, inside no other package below `dir`. */
function directSubpackages(tree: FileTree, dir: string): string[] {
  const dirs = [...tree.keys()]
    .filter((p) => p.endsWith(`/${KPTFILE}`) && within(p, dir))
    .map(dirOf)
    .filter((d) => d !== dir);
  return dirs.filter((d) => !dirs.some((o) => o !== d && within(d, o) && o !== dir)).sort();
}

async function fetchInto(
  tree: FileTree,
  dir: string,
  kf: PlainKptfile,
  opts: UpstreamOptions,
): Promise<void> {
  const kfPath = join(dir, KPTFILE);
  const git = kf.upstream?.git;
  const missing = !git
    ? "kptfile upstream doesn't have git information"
    : !git.repo
      ? "must specify repo"
      : !git.ref
        ? "must specify ref"
        : !git.directory
          ? "must specify directory"
          : undefined;
  if (missing) {
    throw new UpstreamError(
      `${kfPath}: the subpackage names an upstream to fetch, but ${missing.replace("must specify", "no")}; complete upstream.git (repo, directory, ref) or remove upstream`,
      missing,
    );
  }
  const { repo, directory, ref } = git as { repo: string; directory: string; ref: string };
  const upstream = await openUpstream(repo, opts);
  try {
    const { commit, resolvedRef } = await upstream.resolve(ref, directory);
    const files = await upstream.read(commit, directory);
    if (files.size === 0) {
      throw new UpstreamError(
        `${kfPath}: directory "${directory}" does not exist in upstream repository "${repo}" at ${ref}`,
        `path "${directory}" does not exist in repo "${repo}"`,
      );
    }
    for (const [p, b] of files) if (p !== KPTFILE) tree.set(join(dir, p), b);
    const fetched = files.get(KPTFILE);
    const merged = mergeKptfile(
      kf,
      fetched ? readKptfileStruct(fetched.toString("utf8"), kfPath) : {},
      {},
      false,
      kfPath,
    );
    merged.upstreamLock = { type: "git", git: { repo, directory, ref: resolvedRef, commit } };
    tree.set(kfPath, Buffer.from(formatKptfile(merged)));
  } finally {
    await upstream.close();
  }
}
