import type { CommitAuthor, RepoFiles, RepoPushes } from "../../github/port.js";
import type { FileTree } from "../../kpt/tree.js";
import { indexRefs } from "../../lifecycle/refs.js";

/**
 * The content a downstream was fetched from, kept where the bot can find it again: an unpinned tarball
 * URL (`https://…/latest.tar.gz`) serves new bytes when its content changes, so the original of the next
 * 3-way merge is gone from it. Fan-out keeps each such content it proposes in the downstream repository,
 * on branch `porchlight/sources`, under `<sha256 hex>/<directory>`: git is the store, as for everything
 * else, so a restart or another replica finds it. Written once per content (a second run finds it there
 * and writes nothing); never needed for a pinned tarball or an image, whose original stays fetchable by
 * its digest.
 */
export const SOURCES_BRANCH = "porchlight/sources";

const ATTEMPTS = 3;

function pathOf(digest: string, directory: string): string {
  const dir = directory.replace(/^\/+|\/+$/g, "");
  return `${digest.replace(/^sha256:/, "")}${dir ? `/${dir}` : ""}`;
}

/** The content kept for `digest` (and the directory inside it), or undefined when none was kept. */
export async function readKeptSource(
  port: RepoFiles,
  digest: string,
  directory: string,
): Promise<FileTree | undefined> {
  const head = indexRefs(await port.listRefs()).branches.get(SOURCES_BRANCH);
  if (!head) return undefined;
  const { tree } = await port.readTree(head, pathOf(digest, directory));
  return tree.size > 0 ? tree : undefined;
}

/** Keeps `tree` as the content of `digest` (and directory), unless it is kept already. */
export async function keepSource(
  port: RepoFiles & RepoPushes,
  input: { digest: string; directory: string; tree: FileTree; source: string; author: CommitAuthor },
): Promise<"kept" | "present"> {
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const head = indexRefs(await port.listRefs()).branches.get(SOURCES_BRANCH) ?? null;
    const dir = pathOf(input.digest, input.directory);
    if (head && (await port.listFiles(head, dir)).files.length > 0) return "present";
    const pushed = await port.commitTree({
      branch: SOURCES_BRANCH,
      parent: head,
      dir,
      tree: input.tree,
      message: `Keep ${input.source} at ${input.digest}: the original of the next update of its downstreams`,
      author: input.author,
    });
    if (pushed.ok || pushed.reason === "unchanged") return "kept";
  }
  throw new Error(
    `could not write ${SOURCES_BRANCH} in ${port.id.owner}/${port.id.repo}: the branch moved on every one of ${ATTEMPTS} attempts`,
  );
}
