import { rm } from "node:fs/promises";
import { join } from "node:path";
import type { CacheClone } from "./clone.js";
import type { CommitInput } from "./commit.js";
import { writeFiles } from "./write-files.js";

/** The commit made by git in a throwaway index (where commitObjects cannot write it). */
export async function commitWithIndex(
  clone: CacheClone,
  input: CommitInput,
  message: string,
): Promise<string | "unchanged"> {
  const index = join(clone.gitDir, `index-${process.pid}-${Math.random().toString(36).slice(2)}`);
  try {
    return await commitInIndex(clone, input, message, { GIT_INDEX_FILE: index });
  } finally {
    await rm(index, { force: true });
  }
}

async function commitInIndex(
  clone: CacheClone,
  input: CommitInput,
  message: string,
  env: Record<string, string>,
): Promise<string | "unchanged"> {
  const prefix = input.dir === "" ? "" : `${input.dir}/`;
  if (input.parent) await clone.git(["read-tree", input.parent], undefined, env);
  else await clone.git(["read-tree", "--empty"], undefined, env);
  const existing = (await clone.git(["ls-files", "-z", "--stage"], undefined, env))
    .toString("utf8")
    .split("\0")
    .filter(Boolean)
    .map((l) => ({ mode: l.slice(0, 6), id: l.slice(7, 47), path: l.slice(l.indexOf("\t") + 1) }))
    .filter((e) => e.path.startsWith(prefix));
  const before = new Map(existing.map((e) => [e.path, e]));
  const lines: string[] = [];
  for (const e of existing)
    if (!input.tree.has(e.path.slice(prefix.length))) lines.push(`0 ${"0".repeat(40)}\t${e.path}`);
  for (const f of await writeFiles(clone, input, (rel) => before.get(`${prefix}${rel}`)))
    if (f.changed) lines.push(`${f.mode} ${f.id}\t${prefix}${f.rel}`);
  if (lines.length === 0 && input.parent && !input.allowEmpty) return "unchanged";
  await clone.git(["update-index", "-z", "--index-info"], lines.map((l) => `${l}\0`).join(""), env);
  const treeSha = (await clone.git(["write-tree"], undefined, env)).toString("utf8").trim();
  if (input.parent && !input.allowEmpty) {
    const parentTree = (await clone.git(["rev-parse", `${input.parent}^{tree}`])).toString("utf8").trim();
    if (parentTree === treeSha) return "unchanged";
  }
  const who = input.author;
  const commitEnv = {
    GIT_AUTHOR_NAME: who.name,
    GIT_AUTHOR_EMAIL: who.email,
    GIT_COMMITTER_NAME: who.name,
    GIT_COMMITTER_EMAIL: who.email,
  };
  const args = ["commit-tree", treeSha, "-F", "-"];
  if (input.parent) args.push("-p", input.parent);
  const commit = (await clone.git(args, message, commitEnv)).toString("utf8").trim();
  clone.held(commit);
  return commit;
}
