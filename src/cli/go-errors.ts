import { lstatSync } from "node:fs";
import { posix, resolve } from "node:path";

/**
 * A failed file operation in Go's words (`open PATH: not a directory`), as kpt prints an *os.PathError:
 * what kpt's twins (fn render, pkg init, tree, update) answer with must read the same.
 */
const ERRNO_TEXT: Record<string, string> = {
  ENOENT: "no such file or directory",
  ENOTDIR: "not a directory",
  EISDIR: "is a directory",
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  EROFS: "read-only file system",
  ENOSPC: "no space left on device",
  ELOOP: "too many levels of symbolic links",
  ENAMETOOLONG: "file name too long",
};

export function goFileError(op: string, path: string, err: unknown): string {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  const text = (code && ERRNO_TEXT[code]) ?? (err instanceof Error ? err.message : String(err));
  return `${op} ${path}: ${text}`;
}

/**
 * kpt's error for a directory argument that does not exist, as Go's EvalSymlinks words it: the first
 * part of the cleaned path that is missing (`lstat a/nope: no such file or directory`). Undefined when
 * the path exists.
 */
export function missingPathError(cwd: string, path: string): string | undefined {
  const parts = posix.normalize(path).split("/");
  for (let i = 1; i <= parts.length; i++) {
    const prefix = parts.slice(0, i).join("/") || "/";
    try {
      lstatSync(resolve(cwd, prefix));
    } catch (err) {
      return goFileError("lstat", prefix, err);
    }
  }
  return undefined;
}
