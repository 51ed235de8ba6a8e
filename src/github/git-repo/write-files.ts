import { blobId, fastImportBlobs, PACK_FROM, writeBlob } from "../git-objects.js";
import type { CacheClone } from "./clone.js";
import type { CommitInput } from "./commit.js";

/**
 * Each file of `input.tree` with its blob id (the caller's, else hashed; its bytes kept by blob id for
 * the next job) and mode (the one `old` gives it in the parent, else a plain file's), `changed` where the
 * parent does not hold that blob there. Only what changed is written into the object store: loose
 * objects, or one pack by `git fast-import` from PACK_FROM on.
 */
export async function writeFiles(
  clone: CacheClone,
  input: CommitInput,
  old: (rel: string) => { mode: string; id: string } | undefined,
): Promise<{ rel: string; mode: string; id: string; changed: boolean }[]> {
  const files = [...input.tree].map(([rel, bytes]) => {
    const id = input.blobIds?.get(rel) ?? blobId(bytes);
    clone.blobs?.set(clone.gitDir, id, bytes);
    const was = old(rel);
    return { rel, mode: was?.mode ?? "100644", id, changed: was?.id !== id, bytes };
  });
  const fresh = files.filter((f) => f.changed);
  if (fresh.length >= PACK_FROM)
    await clone.git(["fast-import", "--quiet"], fastImportBlobs(fresh.map((f) => f.bytes)));
  else for (const f of fresh) await writeBlob(clone.gitDir, f.bytes, f.id);
  return files;
}
