import { type PlainKptfile, readKptfileStruct } from "../kpt/kptfile.js";
import { sourceKind } from "../kpt/source-ref.js";
import type { FileTree } from "../kpt/tree.js";
import { formatKptfile } from "./kptfile.js";
import { KPTFILE } from "./layout.js";
import { normalizedFiles } from "./package-merge.js";
import type { UpdateStrategy, UpstreamLock } from "./types.js";
import { recordUpstream } from "./upstream.js";

/** Where a cloned package came from: what its Kptfile's upstream and upstreamLock record. */
export type ClonedUpstream = UpstreamLock;

/**
 * `pkg get` as a pure function: the upstream package's files (paths relative to its directory) as
 * kpt writes the local copy — every resource with its `# kpt-merge` comment and upstream-identifier
 * annotation, and a Kptfile named `name` with `upstream` (the ref asked for) and `upstreamLock` (the
 * ref it resolved to, and the commit). With `attribution`, Config Connector resources also record
 * `kpt-pkg` in their `cnrm.cloud.google.com/blueprint` annotation, as `kpt pkg get` writes them.
 */
export function clonedPackage(
  files: FileTree,
  upstream: ClonedUpstream,
  name: string,
  strategy: UpdateStrategy = "resource-merge",
  attribution = false,
): FileTree {
  const tree: FileTree = new Map();
  const normalized = normalizedFiles(files, attribution ? "pkg" : undefined);
  for (const [p, b] of files) {
    const text = normalized.get(p);
    tree.set(p, text === undefined || text === b.toString("utf8") ? b : Buffer.from(text));
  }
  const existing = files.get(KPTFILE);
  const kf: PlainKptfile = existing ? readKptfileStruct(existing.toString("utf8"), KPTFILE) : {};
  kf.apiVersion = kf.apiVersion ?? "kpt.dev/v1";
  kf.kind = kf.kind ?? "Kptfile";
  // kpt writes the fetched Kptfile's metadata over a new one naming the package: its namespace is not kept
  const { namespace: _namespace, ...metadata } = kf.metadata ?? {};
  kf.metadata = { ...metadata, name };
  if (sourceKind(upstream.repo)) {
    // a package from OCI or a tarball: whatever upstream its own Kptfile named is not where it came from
    delete kf.upstream;
    delete kf.upstreamLock;
    recordUpstream(kf, upstream, strategy);
  } else {
    const git = { repo: upstream.repo, directory: upstream.directory, ref: upstream.ref };
    kf.upstream = { type: "git", git, updateStrategy: strategy };
    kf.upstreamLock = {
      type: "git",
      git: { ...git, ref: upstream.resolvedRef ?? upstream.ref, commit: upstream.commit },
    };
  }
  tree.set(KPTFILE, Buffer.from(formatKptfile(kf)));
  return tree;
}
