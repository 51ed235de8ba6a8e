import { randomBytes } from "node:crypto";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * Temporary folders of porchlight's own (the app's cache clones `porchlight-cache-*`, Porch's API's
 * `porchlight-api-*`: clones of private repositories), each marked (in its name) with the process that made it, so
 * that a start can remove those a process killed with SIGKILL (or a crash) left behind. A process
 * removes its own when it stops; one that could not leaves them to the next start's `reclaimTempFolders`.
 */

/** The prefixes of the folders porchlight reclaims: those that hold clones of repositories. */
const RECLAIMED_PREFIXES = ["porchlight-cache-", "porchlight-api-"] as const;

/**
 * This process among those that had its pid: a pid is reused (a restarted container's first process
 * has the same one), the token is not. Made once, never changed.
 */
const PROCESS_TOKEN = randomBytes(8).toString("hex");

/**
 * A new temporary folder `<tmp>/<prefix><pid>-<token>-XXXXXX`, marked as this process's by its name (a
 * file in it would be one more entry where callers' folders are counted).
 */
export function makeTempFolder(prefix: string, root: string = tmpdir()): string {
  return mkdtempSync(join(root, `${prefix}${process.pid}-${PROCESS_TOKEN}-`));
}

/**
 * Removes the folders under `root` named with one of `prefixes` whose maker is gone: its pid is no
 * live process, or it is this process's pid with another token (the process before a restart that
 * reused the pid). A folder of a live process is never removed; one with no mark (an older porchlight's,
 * or another program's) is left alone. Returns the folders removed.
 */
export function reclaimTempFolders(
  prefixes: readonly string[] = RECLAIMED_PREFIXES,
  root: string = tmpdir(),
): string[] {
  let names: string[];
  try {
    names = readdirSync(root);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const owner = prefixes.map((p) => ownerOf(name, p)).find((o) => o !== undefined);
    if (!owner || alive(owner)) continue;
    const dir = join(root, name);
    rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
    removed.push(dir);
  }
  return removed;
}

function ownerOf(name: string, prefix: string): { pid: number; token: string } | undefined {
  if (!name.startsWith(prefix)) return undefined;
  const m = /^(\d+)-([0-9a-f]{16})-[^-]+$/.exec(name.slice(prefix.length));
  return m?.[1] && m[2] ? { pid: Number(m[1]), token: m[2] } : undefined;
}

function alive(owner: { pid: number; token: string }): boolean {
  if (owner.pid === process.pid) return owner.token === PROCESS_TOKEN;
  try {
    process.kill(owner.pid, 0);
    return true;
  } catch (e) {
    // EPERM: a process of another user has that pid: alive
    return (e as NodeJS.ErrnoException).code !== "ESRCH";
  }
}
