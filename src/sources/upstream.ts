import { isDigest, parseSource, type TarballSource } from "../kpt/source-ref.js";
import { type FileTree, subtree } from "../kpt/tree.js";
import { SourceError } from "./errors.js";
import { RegistryClient, type RegistryClientOptions } from "./oci/client.js";
import { pullPackage } from "./oci/package.js";
import { fetchTarball } from "./tarball-fetch.js";

/**
 * An OCI repository or a tarball URL as the upstream of `pkg get|update|diff` and `rpkg clone`: the
 * same shape as a git upstream (src/porch/upstream.ts) — a ref resolves to a "commit", which is the
 * digest here, and a directory is read at it. A floating tag resolves to the digest it points to now;
 * a tarball's digest is the sha256 of its bytes, checked against a pin when the source has one.
 */

export interface SourceUpstream {
  repo: string;
  defaultBranch(): Promise<string>;
  resolve(ref: string, directory: string): Promise<{ commit: string; resolvedRef: string }>;
  read(commit: string, directory: string): Promise<FileTree>;
  close(): Promise<void>;
}

export interface SourceOptions extends RegistryClientOptions {}

/** `repo` is `oci://REGISTRY/REPO` or a tarball URL (as UpstreamInfo.repo records them). */
export function openSourceUpstream(repo: string, opts: SourceOptions = {}): SourceUpstream {
  const src = parseSource(repo, "upstream");
  if (src.kind === "oci") {
    const client = new RegistryClient(src.registry, opts);
    const pulled = new Map<string, FileTree>();
    const pull = async (reference: string, directory: string) => {
      const p = await pullPackage(client, src.repository, reference, directory);
      pulled.set(`${p.digest}|${directory}`, p.tree);
      return p;
    };
    return {
      repo,
      defaultBranch: async () => "latest",
      async resolve(ref, directory) {
        const p = await pull(ref || "latest", directory);
        return { commit: p.digest, resolvedRef: ref || "latest" };
      },
      async read(commit, directory) {
        return pulled.get(`${commit}|${directory}`) ?? (await pull(commit, directory)).tree;
      },
      close: async () => {},
    };
  }
  return tarballUpstream(src, opts);
}

function tarballUpstream(src: TarballSource, opts: SourceOptions): SourceUpstream {
  const archives = new Map<string, FileTree>();
  const download = async (url: string): Promise<{ digest: string; tree: FileTree }> => {
    const got = await fetchTarball(url, opts.fetch ? { fetch: opts.fetch } : {});
    const tree = archives.get(got.digest) ?? got.tree;
    archives.set(got.digest, tree);
    return { digest: got.digest, tree };
  };
  return {
    repo: src.url,
    defaultBranch: async () => "",
    async resolve(ref, _directory) {
      const target = /^https?:\/\//i.test(ref) ? parseSource(ref, "ref") : undefined;
      if (target && target.kind !== "https") throw new SourceError(`"${ref}" is not a tarball URL`);
      const url = target?.url ?? src.url;
      const pin = target ? target.digest : isDigest(ref) ? ref : ref ? undefined : src.digest;
      if (ref && !target && !isDigest(ref)) {
        throw new SourceError(
          `"${ref}" is neither a tarball URL nor sha256:<hex>; a tarball upstream is updated to another URL (DIR@https://…/pkg-v2.tar.gz)`,
        );
      }
      const { digest } = await download(url);
      if (pin && digest !== pin) {
        throw new SourceError(`${url} has sha256 ${digest}, not the pinned ${pin}; refusing it`);
      }
      return { commit: digest, resolvedRef: url };
    },
    async read(commit, directory) {
      let tree = archives.get(commit);
      if (!tree) {
        const got = await download(src.url);
        if (got.digest !== commit) {
          throw new SourceError(
            `${src.url} now has sha256 ${got.digest}, not ${commit} as when the package was fetched: the original is gone, so the 3-way merge cannot run. Publish versioned tarball URLs, and update to a new URL (pkg update DIR@https://…/pkg-v2.tar.gz)`,
          );
        }
        tree = got.tree;
      }
      return subtree(tree, directory.replace(/^\/+|\/+$/g, ""));
    },
    close: async () => {},
  };
}
