import { existsSync } from "node:fs";
import { basename } from "node:path";
import { type FileTree, writeTree } from "../kpt/tree.js";
import { type FetchedRepo, fetchRepo, GitError } from "./git.js";
import { formatKptfile, type PlainKptfile, parseKptfileText } from "./kptfile.js";
import { KPTFILE } from "./layout.js";
import { normalizedFiles } from "./package-merge.js";
import type { RepoSpec } from "./repospec.js";
import type { UpdateStrategy } from "./types.js";

/**
 * `pkg get`: the package at `spec` copied into `localDir`, as kpt writes it: a Kptfile naming the
 * local directory, with `upstream` and `upstreamLock` (the resolved commit); every resource with its
 * `# kpt-merge` comment and upstream-identifier annotation; subpackages as they are upstream.
 */
export interface GetResult {
  tree: FileTree;
  commit: string;
  ref: string;
}

export async function openUpstream(spec: RepoSpec): Promise<FetchedRepo> {
  let last: unknown;
  for (const url of spec.fetchUrls) {
    try {
      return await fetchRepo(url);
    } catch (err) {
      last = err;
    }
  }
  throw last instanceof Error ? last : new GitError(`cannot reach upstream repository "${spec.repo}"`);
}

/** The package tree `pkg get` would write, computed without touching the destination. */
export async function getPackageTree(
  repo: FetchedRepo,
  spec: RepoSpec,
  localName: string,
  strategy: UpdateStrategy = "resource-merge",
): Promise<GetResult> {
  const ref = spec.ref ?? (await repo.defaultBranch());
  const commit = await repo.resolve(ref, spec.directory);
  const files = await repo.readDir(commit, spec.directory);
  if (files.size === 0) {
    throw new GitError(`directory "${spec.directory}" does not exist in "${spec.repo}" at ${ref}`);
  }
  const tree: FileTree = new Map();
  const normalized = normalizedFiles(files);
  for (const [p, b] of files) tree.set(p, Buffer.from(normalized.get(p) ?? b.toString("utf8")));
  const existing = files.get(KPTFILE);
  const kf: PlainKptfile = existing ? parseKptfileText(existing.toString("utf8"), KPTFILE) : {};
  kf.apiVersion = kf.apiVersion ?? "kpt.dev/v1";
  kf.kind = kf.kind ?? "Kptfile";
  kf.metadata = { ...(kf.metadata ?? {}), name: localName };
  const git = { repo: spec.repo, directory: spec.directory, ref };
  kf.upstream = { type: "git", git, updateStrategy: strategy };
  kf.upstreamLock = { type: "git", git: { ...git, commit } };
  tree.set(KPTFILE, Buffer.from(formatKptfile(kf)));
  return { tree, commit, ref };
}

export async function getPackage(
  spec: RepoSpec,
  localDir: string,
  strategy?: UpdateStrategy,
): Promise<GetResult> {
  if (existsSync(localDir)) {
    throw new GitError(`destination "${localDir}" already exists; choose another directory or remove it`);
  }
  const repo = await openUpstream(spec);
  try {
    const result = await getPackageTree(repo, spec, basename(localDir), strategy);
    await writeTree(localDir, new Map(), result.tree);
    return result;
  } finally {
    await repo.close();
  }
}
