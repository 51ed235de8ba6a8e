import { createHash } from "node:crypto";
import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";

/** How many callers' folders of cache clones the API keeps by default (PORCHLIGHT_API_CACHED_CALLERS). */
export const DEFAULT_CACHED_CALLERS = 16;

interface Folder {
  dir: string;
  /** Requests using it now: a folder in use is never removed. */
  users: number;
}

/**
 * Each caller's folder of cache clones (one caller's clones never serve another), made on the first
 * request of a token GitHub accepted, the `max` most recently used kept: past it, the least recently
 * used folder no request is using is removed, so that the disk holds at most `max` callers' clones
 * (more only while more callers' requests run at once). A folder's name is the token's digest and a
 * number of its own: work a request left behind (a read ahead) never meets a folder made again there.
 */
export class CallerFolders {
  /** By digest, least recently used first. */
  readonly #folders = new Map<string, Folder>();
  /** Folders made so far: each new one is named apart from every one before. */
  #made = 0;

  constructor(
    readonly root: string,
    readonly max: number,
  ) {}

  /** The caller's folder, made if missing, kept until `signal` aborts (the request has ended). */
  async hold(token: string, signal: AbortSignal): Promise<string> {
    const key = createHash("sha256").update(token).digest("hex").slice(0, 24);
    let folder = this.#folders.get(key);
    if (folder) this.#folders.delete(key);
    else folder = { dir: join(this.root, `${key}-${++this.#made}`), users: 0 };
    this.#folders.set(key, folder);
    folder.users++;
    const used = folder;
    const done = () => {
      used.users--;
      this.#evict();
    };
    if (signal.aborted) queueMicrotask(done);
    else signal.addEventListener("abort", done, { once: true });
    await mkdir(folder.dir, { recursive: true });
    return folder.dir;
  }

  #evict(): void {
    for (const [key, folder] of this.#folders) {
      if (this.#folders.size <= this.max) return;
      if (folder.users > 0) continue;
      this.#folders.delete(key);
      rm(folder.dir, { recursive: true, force: true, maxRetries: 5 }).catch(() => {});
    }
  }
}
