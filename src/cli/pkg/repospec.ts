import { existsSync } from "node:fs";
import { dirname, isAbsolute, resolve } from "node:path";
import {
  defaultPackageName,
  type PackageSource,
  parseSource,
  SourceRefError,
  sourceKind,
  sourceRepo,
} from "../../kpt/source-ref.js";

/**
 * `REPO[/DIR][@REF]` as kpt reads it: the repository ends at `.git` (kpt drops the suffix from the
 * repo it records). Beyond kpt (which calls such an argument ambiguous), a local path without `.git`
 * is split at the enclosing git repository.
 */
export interface RepoSpec {
  /** The repository as recorded in the Kptfile (no `.git` suffix). */
  repo: string;
  /** Directory in the repository, with a leading slash ("/" for the root). */
  directory: string;
  /** Branch, tag or commit; undefined means the default branch. */
  ref?: string;
  /** The local directory name when none is given (an OCI or tarball source's own name). */
  name?: string;
}

export class RepoSpecError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RepoSpecError";
  }
}

export function parseRepoSpec(arg: string, cwd: string): RepoSpec {
  if (sourceKind(arg)) return sourceSpec(arg);
  let spec = arg;
  let ref: string | undefined;
  const at = refSeparator(spec);
  if (at > 0) {
    ref = spec.slice(at + 1) || undefined;
    spec = spec.slice(0, at);
  }
  const isUrl = /^[a-z][a-z0-9+.-]*:\/\//i.test(spec);
  const dotGit = spec.indexOf(".git");
  if (dotGit >= 0 && (dotGit + 4 === spec.length || spec[dotGit + 4] === "/")) {
    const base = spec.slice(0, dotGit);
    const repo = isUrl ? base : resolve(cwd, base);
    const directory = `/${spec.slice(dotGit + 4).replace(/^\/+|\/+$/g, "")}`;
    return { repo, directory, ref };
  }
  if (isUrl) {
    throw new RepoSpecError(
      `ambiguous repo/dir@version "${arg}": mark where the repository ends with ".git"`,
    );
  }
  const abs = isAbsolute(spec) ? spec : resolve(cwd, spec);
  let root = abs;
  while (!existsSync(`${root}/.git`) && !existsSync(`${root}/HEAD`)) {
    const up = dirname(root);
    if (up === root) throw new RepoSpecError(`"${arg}" is not in a git repository`);
    root = up;
  }
  const directory = `/${abs.slice(root.length).replace(/^\/+|\/+$/g, "")}`;
  return { repo: root, directory, ref };
}

/**
 * `oci://REGISTRY/REPO[//DIR][:TAG|@sha256:…]` and `https://…/pkg.tar.gz[//DIR][#sha256=…]` (see
 * src/kpt/source-ref.ts): the repository without directory or version; the ref is the tag or digest
 * (no tag: `latest`), for a tarball its pin, if any.
 */
function sourceSpec(arg: string): RepoSpec {
  let src: PackageSource;
  try {
    src = parseSource(arg, "pkg get");
  } catch (err) {
    if (err instanceof SourceRefError) throw new RepoSpecError(err.message);
    throw err;
  }
  const ref = src.kind === "oci" ? (src.digest ?? src.tag) : src.digest;
  return {
    repo: sourceRepo(src),
    directory: src.directory,
    ...(ref ? { ref } : {}),
    name: defaultPackageName(src),
  };
}

/**
 * Where `@REF` starts, or -1. Past the `.git` that ends the repository, the first `@` (as kpt reads
 * it), so a ref may hold `/` — `repo.git/hello@hello/v2`, porchlight's own tags. Without `.git`, the
 * last `@` not followed by `/`, else the first `@` whose left side exists on disk.
 */
function refSeparator(spec: string): number {
  const marker = /\.git(?=\/|@|$)/.exec(spec);
  if (marker) return spec.indexOf("@", marker.index + 4);
  const last = spec.lastIndexOf("@");
  if (last > 0 && !spec.slice(last).includes("/")) return last;
  const first = spec.indexOf("@");
  return first > 0 && existsSync(spec.slice(0, first)) ? first : -1;
}
