/**
 * The repository's configuration file. Here, with the problems it is named in, rather than in parse.ts:
 * what only looks for the file (load.ts, before it knows whether there is one) loads no schema.
 */
export const CONFIG_PATH = ".github/porchlight.yml";

/** One thing wrong with a configuration file, located for a check run annotation. */
export interface ConfigProblem {
  /** The file's path in the repository, e.g. `.github/porchlight.yml`. */
  file: string;
  /** The branch, tag or commit the file was read from. */
  ref: string | undefined;
  /** 1-based line and column of the offending text. */
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
  /** The field, written as in the file: `guardrails[0].image`; empty for the whole file. */
  field: string;
  /** What is wrong and, where it helps, what to write instead. */
  message: string;
}

/** One line for logs and comments: `.github/porchlight.yml:3:14 (main): mergeMethod: must be …`. */
export function formatProblem(p: ConfigProblem): string {
  const at = p.ref ? ` (${p.ref})` : "";
  const field = p.field ? `${p.field}: ` : "";
  return `${p.file}:${p.line}:${p.column}${at}: ${field}${p.message}`;
}
