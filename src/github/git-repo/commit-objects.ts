import {
  commitAsGitWrites,
  parseTree,
  TREE_MODE,
  type TreeItem,
  writeCommit,
  writeTree,
  writeTrees,
} from "../git-objects.js";
import type { CacheClone } from "./clone.js";
import type { CommitInput } from "./commit.js";
import type { TreeReader } from "./trees.js";
import { writeFiles } from "./write-files.js";

/**
 * The commit written in this process: the new blobs (as loose objects, or one pack from PACK_FROM on),
 * the trees of `dir` from the files' blob ids (a file keeps the parent's mode), each tree above it
 * with its entry replaced, and the commit object — as `write-tree` and `commit-tree` write them,
 * without the six git processes of an index (read-tree, ls-files, update-index, write-tree, rev-parse,
 * commit-tree). Undefined where git must make it: an author or message git would write otherwise, a
 * path of `dir` that is not a tree in the parent.
 */
export async function commitObjects(
  clone: CacheClone,
  trees: TreeReader,
  input: CommitInput,
  message: string,
): Promise<string | "unchanged" | undefined> {
  if (!commitAsGitWrites(input.author, message)) return undefined;
  const parts = input.dir === "" ? [] : input.dir.split("/");
  // the parent's trees along the path and its files in `dir`, asked at once
  const [chain, listed] = input.parent
    ? await Promise.all([treeChain(clone, input.parent, parts), trees.entries(input.parent, input.dir)])
    : [{ root: undefined, trees: [] }, []];
  if (!chain) return undefined;
  const before = new Map(listed.map((e) => [e.path, e]));
  const written = await writeFiles(clone, input, (rel) => before.get(rel));
  let child = await writeTrees(clone.gitDir, new Map(written.map((f) => [f.rel, f])));
  for (let k = parts.length - 1; k >= 0; k--) {
    const name = parts[k] ?? "";
    const items = (chain.trees[k] ?? []).filter((i) => i.name !== name);
    if (child) items.push({ mode: TREE_MODE, name, id: child });
    // a directory left with nothing is no tree (git keeps none empty), but the root is one
    child = items.length > 0 || k === 0 ? await writeTree(clone.gitDir, items) : undefined;
  }
  const tree = child ?? (await writeTree(clone.gitDir, []));
  if (input.parent && !input.allowEmpty && tree === chain.root) return "unchanged";
  const author = { ...input.author, seconds: Math.floor(Date.now() / 1000) };
  const commit = await writeCommit(clone.gitDir, { tree, parent: input.parent, author, message });
  clone.held(commit);
  return commit;
}

/**
 * The parent's root tree id, and the entries of its trees along `parts` (a directory's path): the
 * root's, then each directory's down to the one holding the last part (one `cat-file --batch`). A
 * directory the parent lacks has none (undefined, and so do those below it). Undefined where a part is
 * not a tree (a file).
 */
async function treeChain(
  clone: CacheClone,
  parent: string,
  parts: readonly string[],
): Promise<{ root: string; trees: (TreeItem[] | undefined)[] } | undefined> {
  const names = [
    `${parent}^{tree}`,
    ...parts.slice(0, -1).map((_, k) => `${parent}:${parts.slice(0, k + 1).join("/")}`),
  ];
  const out = await clone.git(["cat-file", "--batch"], `${names.join("\n")}\n`);
  const trees: (TreeItem[] | undefined)[] = [];
  let root: string | undefined;
  let offset = 0;
  for (let k = 0; k < names.length; k++) {
    const nl = out.indexOf(10, offset);
    const header = out.toString("utf8", offset, nl);
    offset = nl + 1;
    if (header.endsWith(" missing")) {
      if (k === 0) return undefined;
      trees.push(undefined);
      continue;
    }
    const [id = "", type, size] = header.split(" ");
    if (type !== "tree") return undefined;
    const end = offset + Number(size);
    trees.push(parseTree(out.subarray(offset, end)));
    root ??= id;
    offset = end + 1;
  }
  return root === undefined ? undefined : { root, trees };
}
