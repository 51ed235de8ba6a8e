import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";

/** A maker of fresh temporary directories named `prefix…`, each removed after the calling describe block's tests. */
export function useTempDirs(prefix: string): () => string {
  const made: string[] = [];
  afterAll(() => {
    for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  return () => {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    made.push(dir);
    return dir;
  };
}

/** A fresh temporary directory named `prefix…`, made now and removed after the calling describe block's tests. */
export function useTempDir(prefix: string): string {
  return useTempDirs(prefix)();
}
