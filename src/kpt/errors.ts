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

/**
 * What kpt's error resolver says of a Kptfile it will not read for its type: an apiVersion and kind
 * other than kpt.dev/v1 Kptfile (`gvk` as Go prints it, `kpt.dev/v2, Kind=Kptfile`), or one of the old
 * schema versions.
 */
export type KptfileType = { unknown: string } | { oldVersion: "v1alpha1" | "v1alpha2" };

/** The Kptfile parses but breaks kpt's schema. */
export class KptfileError extends KptError {
  /** Set when kpt refuses the Kptfile for its apiVersion and kind, before reading its fields. */
  kptType?: KptfileType;

  constructor(position: SourcePosition, problem: string) {
    super(position, problem);
    this.name = "KptfileError";
  }
}

/**
 * kpt's text for a Kptfile it cannot read, in the package directory `dir` (its error resolver's words,
 * without the `Error: ` kpt prints first): an unknown resource type, an old schema version, else
 * "can't be read" with its decoder's details — porchlight's own message stands in for details kpt's
 * decoder would word differently. Undefined when `e` is not about a Kptfile.
 */
export function kptfileKptText(e: unknown, dir: string): string | undefined {
  if (!(e instanceof YamlError || e instanceof KptfileError) || e instanceof KptfileInvalidError)
    return undefined;
  const file = e.position.file;
  if (file !== "Kptfile" && !file.endsWith("/Kptfile")) return undefined;
  const type = e instanceof KptfileError ? e.kptType : undefined;
  if (type && "unknown" in type)
    return `Kptfile at "${dir}" has an unknown resource type (${JSON.stringify(type.unknown)}).`;
  if (type) {
    const what = `Kptfile at "${dir}" has an old version ("${type.oldVersion}") of the Kptfile schema.\n`;
    return type.oldVersion === "v1alpha1"
      ? `${what}Please update the package to the latest format by following https://kpt.dev/installation/migration.`
      : `${what}Please run "kpt fn eval <PKG_PATH> -i gcr.io/kpt-fn/fix:v0.2 --include-meta-resources" to upgrade the package and retry.`;
  }
  return `Kptfile at "${dir}" can't be read.\n\nDetails:\n${e.kptDetail ?? e.message}`;
}

function formatPosition(p: SourcePosition): string {
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
