/**
 * A failed file operation in Go's words (`open PATH: not a directory`), as kpt prints an *os.PathError:
 * the verbs kpt's twins (pkg init, pkg tree) answer with must read the same.
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
