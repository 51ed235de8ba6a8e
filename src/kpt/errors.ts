/** Where in a package a problem is: the file, and when known the line, column and field. */
export interface SourcePosition {
  file: string;
  /** 1-based. */
  line?: number;
  /** 1-based. */
  column?: number;
  /** Dotted field path, e.g. `pipeline.mutators[0].image`. */
  field?: string;
}

/**
 * An error in a package's content. The message is complete and meant for the user: it starts with the
 * position (`path/Kptfile:12:5:`) and says what is wrong and what to do.
 */
export class KptError extends Error {
  readonly position: SourcePosition;
  /** The problem without the position prefix. */
  readonly problem: string;
  /** The same problem in the words of kpt's YAML decoder (`yaml: unmarshal errors: …`), where kpt's are fixed. */
  kptDetail?: string;

  constructor(position: SourcePosition, problem: string) {
    super(`${formatPosition(position)}: ${problem}`);
    this.name = "KptError";
    this.position = position;
    this.problem = problem;
  }
}

/** The file does not parse as YAML. */
export class YamlError extends KptError {
  constructor(position: SourcePosition, problem: string) {
    super(position, problem);
    this.name = "YamlError";
  }
}

/** The Kptfile parses but breaks kpt's schema. */
export class KptfileError extends KptError {
  constructor(position: SourcePosition, problem: string) {
    super(position, problem);
    this.name = "KptfileError";
  }
}

export function formatPosition(p: SourcePosition): string {
  let s = p.file;
  if (p.line !== undefined) s += `:${p.line}`;
  if (p.line !== undefined && p.column !== undefined) s += `:${p.column}`;
  if (p.field) s += ` (field ${p.field})`;
  return s;
}

/**
 * kpt's "Kptfile is invalid" error for a pipeline field (a function config that is missing, outside the
 * package, or holds more than one resource): kpt's fixed text first, then where porchlight found it.
 */
export class KptfileInvalidError extends KptError {
  /** kpt's text, as kpt prints it (no `Error:` prefix). */
  readonly kptText: string;

  constructor(
    position: SourcePosition,
    kpt: { field: string; value?: string; reason: string },
    problem: string,
  ) {
    super(position, problem);
    this.name = "KptfileInvalidError";
    const value = kpt.value === undefined ? "" : `Value: ${JSON.stringify(kpt.value)}\n`;
    this.kptText = `Kptfile is invalid:\nField: \`${kpt.field}\`\n${value}Reason: ${kpt.reason}\n`;
  }
}
