import type { FileTree } from "../../kpt/tree.js";
import { type FanoutAction, readKptfileFacts } from "../../variants/index.js";
import type { Admit } from "./admit.js";
import { FanoutStepError } from "./context.js";
import type { RepoSnapshot } from "./snapshot.js";
import type { UpstreamSource } from "./update.js";

type ChangeAction = Extract<FanoutAction, { kind: "clone" | "update" }>;

/**
 * A git upstream: the package at its tag `<package>/<to>`; the original at the locked revision's tag (or
 * commit). Each is held to the package limits (`admit`, the same check an image or a tarball gets) from
 * the git tree's names and sizes before a file is read, so a package past one is refused before anything
 * is built or pushed. Trees (and refusals) are shared through `cache` per run.
 */
export function gitUpstream(
  snap: RepoSnapshot,
  action: ChangeAction,
  cache: Map<string, Promise<FileTree>>,
  admit: Admit,
): UpstreamSource {
  const dir = action.upstream.package;
  const read = (ref: string, what: string) => {
    const key = `${snap.repository.fullName}\0${ref}\0${dir}`;
    let tree = cache.get(key);
    if (!tree) {
      const at = /^[0-9a-f]{40}$/.test(ref) ? ref : `refs/tags/${ref}`;
      tree = snap.port.listFiles(at, dir).then(async ({ files }) => {
        const bytes = files.reduce((n, f) => n + f.size, 0);
        const refusal = admit({ files: files.length, bytes });
        if (refusal)
          throw new FanoutStepError(`reading ${what} ${snap.repository.fullName} at ${ref}: ${refusal}`);
        return (await snap.port.readTree(at, dir)).tree;
      });
      cache.set(key, tree);
    }
    return tree;
  };
  const tag = `${dir}/${action.to}`;
  return {
    lock: {
      repo: snap.repository.cloneUrl,
      directory: `/${dir}`,
      ref: tag,
      resolvedRef: tag,
      commit: action.toCommit,
    },
    target: () => read(tag, "the upstream"),
    async original(local) {
      const facts = readKptfileFacts(local.get("Kptfile")?.toString("utf8") ?? "");
      const ref = facts.lockedRevision ? `${dir}/${facts.lockedRevision}` : facts.lockedCommit;
      return ref ? read(ref, "the upstream revision the downstream was fetched from,") : new Map();
    },
  };
}
