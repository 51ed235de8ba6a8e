import { randomBytes } from "node:crypto";
import { renameSync, rmSync, writeFileSync } from "node:fs";

/**
 * Writes `text` to `path` readable and writable by its owner alone (0600), as the forge keeps every
 * user's token, the app's private key and its webhook secret. `writeFileSync`'s `mode` applies only to a
 * file it creates: over an existing 0644 file it kept 0644. So the text goes to a new file made 0600 beside
 * it (`wx`: never one that is already there), renamed over the old one: the file then is the new one with
 * its mode, no moment shows the text under the old mode, and a crash leaves the old file whole.
 * (The app's command line keeps its own copy, src/cli/private-file.ts: the forge imports nothing of src/.)
 */
export function writePrivateFile(path: string, text: string): void {
  const temp = `${path}.${randomBytes(6).toString("hex")}.tmp`;
  writeFileSync(temp, text, { mode: 0o600, flag: "wx" });
  try {
    renameSync(temp, path);
  } catch (err) {
    rmSync(temp, { force: true });
    throw err;
  }
}
