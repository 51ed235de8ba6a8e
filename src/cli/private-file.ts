import { randomBytes } from "node:crypto";
import { renameSync, rmSync, writeFileSync } from "node:fs";
import { rename, rm, writeFile } from "node:fs/promises";

/**
 * Writes `text` to `path` readable and writable by its owner alone (0600): a kubeconfig holds a GitHub
 * token, a TLS key is a private key. `writeFile`'s `mode` applies only to a file it creates: over an
 * existing 0644 file it kept 0644. So the text goes to a new file made 0600 beside it (`wx`: never one
 * that is already there), renamed over the old one: the file then is the new one with its mode, no
 * moment shows the secret under the old mode, and a crash leaves the old file whole. (The embedded forge
 * keeps its own copy, packages/forge/src/private-file.ts: it imports nothing of src/.)
 */
export async function writePrivateFile(path: string, text: string): Promise<void> {
  const temp = `${path}.${randomBytes(6).toString("hex")}.tmp`;
  await writeFile(temp, text, { mode: 0o600, flag: "wx" });
  try {
    await rename(temp, path);
  } catch (err) {
    await rm(temp, { force: true });
    throw err;
  }
}

/** writePrivateFile for a caller that cannot wait: the same 0600 file renamed over the old one. */
export function writePrivateFileSync(path: string, text: string): void {
  const temp = `${path}.${randomBytes(6).toString("hex")}.tmp`;
  writeFileSync(temp, text, { mode: 0o600, flag: "wx" });
  try {
    renameSync(temp, path);
  } catch (err) {
    rmSync(temp, { force: true });
    throw err;
  }
}
