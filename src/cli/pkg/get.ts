import { existsSync } from "node:fs";
import { basename } from "node:path";
import { generatePackageContext } from "../../kpt/package-context.js";
import { writeTree } from "../../kpt/tree.js";
import { clonedPackage, type UpdateStrategy } from "../../merge/index.js";
import { openUpstream, UpstreamError, type UpstreamOptions } from "../../porch/upstream.js";
import { withRemoteSubpackages } from "./remote-subpackages.js";
import type { RepoSpec } from "./repospec.js";

/**
 * `pkg get`: the package at `spec` copied into `localDir`, as kpt writes it (see clonedPackage), its
 * remote subpackages fetched from their own upstreams (withRemoteSubpackages); with
 * `forDeployment`, its package context generated anew (generatePackageContext), as `--for-deployment`.
 * The destination must not exist; nothing is written unless the whole package was read.
 */
export interface GetResult {
  commit: string;
  ref: string;
  resolvedRef: string;
  files: number;
}

export async function getPackage(
  spec: RepoSpec,
  localDir: string,
  opts: UpstreamOptions & { strategy?: UpdateStrategy; attribution?: boolean; forDeployment?: boolean } = {},
): Promise<GetResult> {
  if (existsSync(localDir)) {
    throw new UpstreamError(
      `destination "${localDir}" already exists; choose another directory or remove it`,
    );
  }
  const upstream = await openUpstream(spec.repo, opts);
  try {
    const ref = spec.ref ?? (await upstream.defaultBranch());
    const { commit, resolvedRef } = await upstream.resolve(ref, spec.directory);
    const fetched = await upstream.read(commit, spec.directory);
    if (fetched.size === 0) {
      throw new UpstreamError(
        `directory "${spec.directory}" does not exist in upstream repository "${spec.repo}" at ${ref}`,
        `path "${spec.directory}" does not exist in repo "${spec.repo}"`,
      );
    }
    const files = await withRemoteSubpackages(fetched, opts);
    const lock = { repo: spec.repo, directory: spec.directory, ref, resolvedRef, commit };
    const cloned = clonedPackage(files, lock, basename(localDir), opts.strategy, opts.attribution ?? false);
    const tree = opts.forDeployment ? generatePackageContext(cloned) : cloned;
    await writeTree(localDir, new Map(), tree);
    return { commit, ref, resolvedRef, files: tree.size };
  } finally {
    await upstream.close();
  }
}
