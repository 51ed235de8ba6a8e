import { type Document, isMap, isScalar, type LineCounter, parseDocument, visit } from "yaml";
import type { z } from "zod";
import { KptfileError, KptfileInvalidError, type SourcePosition } from "./errors.js";
import { type Kptfile, kptfileSchema } from "./kptfile-schema.js";
import { kptfileData } from "./kptfile-struct.js";
import { detectSeqIndent, formatDocuments } from "./yaml/format.js";
import { formatFieldPath, locate, pointAt, positionOf } from "./yaml/yaml-locate.js";
import { parseYamlFile } from "./yaml/yamlfile.js";

export type { KptFunction, Kptfile, Selector } from "./kptfile-schema.js";

export const KPTFILE_NAME = "Kptfile";

/** Whether a tree path names a Kptfile: the root's, or a (sub)package's at `dir/Kptfile`. */
export function isKptfilePath(path: string): boolean {
  return path === KPTFILE_NAME || path.endsWith(`/${KPTFILE_NAME}`);
}
export const KPTFILE_API_VERSION = "kpt.dev/v1";

export interface ParsedKptfile {
  /** The document itself: edit it to change the Kptfile and keep its comments and layout. */
  doc: Document;
  /** A validated plain copy, for reading. */
  kptfile: Kptfile;
}

/**
 * Parses and validates a Kptfile as kpt v1 does: strict fields, one document, the function rules kpt
 * checks. Every error names the file, line, column and field, and says what to do.
 */
export function parseKptfile(text: string, file: string): ParsedKptfile {
  const { docs, lineCounter } = parseYamlFile(text, file);
  if (docs.length !== 1) {
    const error = new KptfileError(
      { file },
      docs.length === 0
        ? "the Kptfile is empty; it needs apiVersion kpt.dev/v1, kind Kptfile and metadata.name"
        : `the Kptfile holds ${docs.length} YAML documents; keep exactly one`,
    );
    // kpt's YAML reader finds no document in an empty Kptfile
    if (docs.length === 0) error.kptDetail = "EOF";
    throw error;
  }
  const [doc] = docs;
  if (!doc)
    throw new KptfileError(
      { file },
      "the Kptfile is empty; it needs apiVersion kpt.dev/v1, kind Kptfile and metadata.name",
    );
  checkType(doc, lineCounter, file);
  duplicateKeys(doc, lineCounter, file);
  const result = kptfileSchema.safeParse(doc.toJS(), { reportInput: true });
  if (!result.success) {
    // zod reports at least one issue for a failed parse
    const issue = result.error.issues[0]!;
    if (issue.code === "custom") {
      // A rule kpt's own Kptfile validation checks: kpt's "Kptfile is invalid" text, then where it is.
      const position = fieldPosition(doc, lineCounter, file, issue.path);
      const field = formatFieldPath(issue.path.filter((k) => typeof k !== "symbol") as (string | number)[]);
      const value = doc.getIn(issue.path as (string | number)[]);
      throw new KptfileInvalidError(
        position,
        { field, ...(typeof value === "string" ? { value } : {}), reason: issue.message },
        `${issue.message}; fix it in the Kptfile`,
      );
    }
    const unknownKey = issue.code === "unrecognized_keys" ? issue.keys[0] : undefined;
    const position = fieldPosition(doc, lineCounter, file, issue.path, unknownKey);
    const error = new KptfileError(position, describeIssue(issue, unknownKey));
    const detail = decoderDetail(issue, unknownKey);
    if (detail && position.line !== undefined)
      error.kptDetail = `yaml: unmarshal errors:\n  line ${position.line}: ${detail}`;
    throw error;
  }
  return { doc, kptfile: result.data };
}

/**
 * Every reader of a Kptfile's text is here; the rest of porchlight asks one of them (test/house-kptfile.test.ts
 * fails on a YAML parse of a Kptfile outside src/kpt):
 *
 * - `parseKptfile`: kpt's own reading, for a package porchlight renders or edits as kpt would: every
 *   problem an error naming the file, line and field.
 * - `readKptfileStruct`: the Kptfile as kpt's Go struct holds it (kptfile-struct.ts), for the verbs
 *   that read and rewrite it as kpt's `pkg get`/`update` do.
 * - `kptfileDocument`: the document to edit and write back with its comments and layout, unchecked.
 * - `readKptfileFields`: the few fields porchlight reads of a Kptfile it does not own (a downstream's,
 *   a published revision's), leniently: it never throws.
 */

// biome-ignore lint/suspicious/noExplicitAny: a Kptfile read as plain data, shaped as kpt's struct (kptfile-struct.ts)
export type PlainKptfile = Record<string, any>;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * A Kptfile read as plain data in kpt's struct (string leaves as their text, as yaml.v3 decodes them into
 * Go strings) without the schema's checks: kpt's update reads what its decoder accepts, and porchlight
 * keeps the fields it does not know. An error names the file when the text is no YAML or no mapping.
 */
export function readKptfileStruct(text: string, file: string): PlainKptfile {
  const doc = parseDocument(text);
  const err = doc.errors[0];
  if (err) throw new KptfileError({ file }, `invalid YAML: ${err.message.split("\n")[0]}`);
  const value = kptfileData(doc);
  if (!isObject(value)) throw new KptfileError({ file }, "the Kptfile is not a YAML mapping");
  return value;
}

/**
 * A Kptfile's document, to change a few fields and write it back with its comments and layout (a
 * downstream's tracking annotations removed, the pipeline replaced by the guardrails'), without kpt's
 * checks. An error names the file when the text is no YAML.
 */
export function kptfileDocument(text: string, file: string): Document {
  const doc = parseDocument(text);
  const err = doc.errors[0];
  if (err) throw new KptfileError({ file }, `invalid YAML: ${err.message.split("\n")[0]}`);
  return doc;
}

/**
 * A Kptfile edited in place and written back as kpt writes it: `edit` changes its first document (and
 * says whether it changed anything); every other byte is formatted as before (its lists' indentation
 * kept, kpt's wide style where no list says one). Undefined when the text has no mapping document or
 * `edit` changed nothing.
 */
export function editKptfile(
  text: string,
  file: string,
  edit: (doc: Document) => boolean,
): string | undefined {
  const parsed = parseYamlFile(text, file);
  const doc = parsed.docs[0];
  if (!doc || !isMap(doc.contents)) return undefined;
  if (!edit(doc)) return undefined;
  // a Kptfile whose lists do not say their style gets kpt's for Kptfiles (merge/kptfile.ts: wide)
  const decided = /^[ \t]*- /m.test(text);
  return formatDocuments(
    parsed.docs,
    parsed.docs.map((d) => (decided ? detectSeqIndent(d, text) : "wide")),
  );
}

/** The fields porchlight reads of a Kptfile it does not validate, each only where it has its shape. */
export interface KptfileFields {
  /** `metadata.annotations`, those whose value is a string. */
  annotations: Readonly<Record<string, string>>;
  /** `upstream.git.repo`. */
  upstreamRepo?: string;
  /** `upstreamLock.git.ref`, e.g. `basens/v3` or `drafts/basens/ws1`. */
  lockRef?: string;
  /** `upstreamLock.git.commit`. */
  lockCommit?: string;
  /** `upstreamLock.oci.image`. */
  lockImage?: string;
}

/**
 * A Kptfile's annotations and upstream, read leniently: a Kptfile that is no YAML (or holds more than one
 * document) has none, a part that is not a mapping holds nothing, a field that is not a string is not
 * there. It never throws: its callers (fan-out planning, the catalog's channels) read other people's
 * Kptfiles and treat what they cannot read as absent.
 */
export function readKptfileFields(text: string): KptfileFields {
  let data: unknown;
  try {
    const doc = parseDocument(text);
    if (doc.errors.length > 0) return { annotations: {} };
    data = doc.toJS();
  } catch {
    // toJS refuses a document whose aliases expand past yaml's limit
    return { annotations: {} };
  }
  const at = (value: unknown, key: string): unknown => (isObject(value) ? value[key] : undefined);
  const str = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);
  const annotations: Record<string, string> = {};
  const raw = at(at(data, "metadata"), "annotations");
  if (isObject(raw)) for (const [k, v] of Object.entries(raw)) if (typeof v === "string") annotations[k] = v;
  const lock = at(data, "upstreamLock");
  const fields: KptfileFields = { annotations };
  const upstreamRepo = str(at(at(at(data, "upstream"), "git"), "repo"));
  const lockRef = str(at(at(lock, "git"), "ref"));
  const lockCommit = str(at(at(lock, "git"), "commit"));
  const lockImage = str(at(at(lock, "oci"), "image"));
  if (upstreamRepo !== undefined) fields.upstreamRepo = upstreamRepo;
  if (lockRef !== undefined) fields.lockRef = lockRef;
  if (lockCommit !== undefined) fields.lockCommit = lockCommit;
  if (lockImage !== undefined) fields.lockImage = lockImage;
  return fields;
}

/** A scalar's text as kyaml reads it for apiVersion and kind; nothing for a null or a collection. */
function scalarText(doc: Document, key: string): string {
  const node = doc.get(key, true);
  if (!isScalar(node) || node.value === null || node.value === undefined) return "";
  return typeof node.value === "string" ? node.value : (node.source ?? String(node.value));
}

/**
 * kpt reads a Kptfile's apiVersion and kind before its fields, and refuses any but kpt.dev/v1
 * Kptfile: the old schema versions with their upgrade advice, anything else as an unknown resource
 * type (KptfileError.kptType holds kpt's words for both).
 */
function checkType(doc: Document, lineCounter: LineCounter, file: string): void {
  const apiVersion = scalarText(doc, "apiVersion");
  const kind = scalarText(doc, "kind");
  if (apiVersion === KPTFILE_API_VERSION && kind === "Kptfile") return;
  const parts = apiVersion === "" || apiVersion === "/" ? ["", ""] : apiVersion.split("/");
  if (parts.length > 2) {
    const error = new KptfileError(
      fieldPosition(doc, lineCounter, file, ["apiVersion"]),
      `apiVersion "${apiVersion}" is not GROUP/VERSION; a Kptfile has apiVersion ${KPTFILE_API_VERSION}`,
    );
    error.kptDetail = `unexpected GroupVersion string: ${apiVersion}`;
    throw error;
  }
  const [group, version] = parts.length === 1 ? ["", parts[0] as string] : (parts as [string, string]);
  if (group === "kpt.dev" && kind === "Kptfile" && (version === "v1alpha1" || version === "v1alpha2")) {
    const error = new KptfileError(
      fieldPosition(doc, lineCounter, file, ["apiVersion"]),
      version === "v1alpha1"
        ? `the Kptfile has an old version ("v1alpha1") of the Kptfile schema; update the package to kpt.dev/v1 as https://kpt.dev/installation/migration says`
        : `the Kptfile has an old version ("v1alpha2") of the Kptfile schema; run ` +
            `"kpt fn eval <PKG_PATH> -i gcr.io/kpt-fn/fix:v0.2 --include-meta-resources" to upgrade the package and retry`,
    );
    error.kptType = { oldVersion: version };
    throw error;
  }
  const wrong = apiVersion === KPTFILE_API_VERSION ? "kind" : "apiVersion";
  const error = new KptfileError(
    fieldPosition(doc, lineCounter, file, [wrong]),
    `a Kptfile has apiVersion ${KPTFILE_API_VERSION} and kind Kptfile, not ${JSON.stringify(apiVersion)} and ${JSON.stringify(kind)}; fix the ${wrong}`,
  );
  error.kptType = { unknown: `${group}/${version}, Kind=${kind}` };
  throw error;
}

/**
 * kpt decodes a Kptfile into its Go types, and yaml.v3's decoder refuses a key twice in one mapping
 * (resources, read as nodes, may hold one twice: parseYamlFile keeps both).
 */
function duplicateKeys(doc: Document, lineCounter: LineCounter, file: string): void {
  visit(doc, {
    Map(_, map) {
      const seen = new Map<unknown, number>();
      for (const pair of map.items) {
        if (!isScalar(pair.key) || !pair.key.range) continue;
        const line = lineCounter.linePos(pair.key.range[0]).line;
        const first = seen.get(pair.key.value);
        if (first === undefined) {
          seen.set(pair.key.value, line);
          continue;
        }
        const key = String(pair.key.value);
        const error = new KptfileError(
          { file, line, column: lineCounter.linePos(pair.key.range[0]).col },
          `the key "${key}" is already defined at line ${first} of this mapping; keep one of the two`,
        );
        error.kptDetail = `yaml: unmarshal errors:\n  line ${line}: mapping key "${key}" already defined at line ${first}`;
        throw error;
      }
    },
  });
}

/**
 * Where a schema error is: the field's value, or the nearest parent that exists when it is missing. With
 * `key`, the key of that unknown field inside the mapping at `path`.
 */
function fieldPosition(
  doc: Document,
  lineCounter: LineCounter,
  file: string,
  path: readonly PropertyKey[],
  key?: string,
): SourcePosition {
  const keys = path.filter((p): p is string | number => typeof p === "string" || typeof p === "number");
  const full = key === undefined ? keys : [...keys, key];
  const field = formatFieldPath(full);
  const node = pointAt(locate(doc.contents, full), { preferKey: key !== undefined });
  if (!node) return { file, field };
  const position: SourcePosition = { file };
  if (field) position.field = field;
  return node.range ? { ...position, ...positionOf(node, lineCounter) } : position;
}

function describeIssue(issue: z.core.$ZodIssue, unknownKey: string | undefined): string {
  switch (issue.code) {
    case "unrecognized_keys":
      return `unknown field "${unknownKey}": kpt rejects fields the Kptfile schema (kpt.dev/v1) does not define; remove it or fix its spelling`;
    case "invalid_type":
      return `expected ${article(issue.expected)}, found ${describeReceived(issue.input)}`;
    case "invalid_value":
      return `must be ${issue.values.map((v) => JSON.stringify(v)).join(" or ")}, found ${describeReceived(issue.input)}`;
    default:
      return issue.message;
  }
}

/** The Go types kpt decodes a Kptfile into, by where a mapping sits (`#` for a list index). */
const GO_TYPES: Record<string, string> = {
  "": "v1.KptFile",
  metadata: "yaml.ObjectMeta",
  upstream: "v1.Upstream",
  "upstream.git": "v1.Git",
  upstreamLock: "v1.UpstreamLock",
  "upstreamLock.git": "v1.GitLock",
  info: "v1.PackageInfo",
  pipeline: "v1.Pipeline",
  "pipeline.mutators.#": "v1.Function",
  "pipeline.validators.#": "v1.Function",
  "pipeline.mutators.#.selectors.#": "v1.Selector",
  "pipeline.validators.#.selectors.#": "v1.Selector",
  "pipeline.mutators.#.exclude.#": "v1.Selector",
  "pipeline.validators.#.exclude.#": "v1.Selector",
  inventory: "v1.Inventory",
  status: "v1.Status",
};

/** What kpt's YAML decoder (yaml.v3) says about the same problem, when its words are predictable. */
function decoderDetail(issue: z.core.$ZodIssue, unknownKey: string | undefined): string | undefined {
  const where = issue.path.map((k) => (typeof k === "number" ? "#" : String(k))).join(".");
  if (issue.code === "unrecognized_keys" && unknownKey !== undefined) {
    const type = GO_TYPES[where];
    return type ? `field ${unknownKey} not found in type ${type}` : undefined;
  }
  if (issue.code === "invalid_type" && issue.expected === "string" && issue.input !== undefined) {
    return `cannot unmarshal ${yamlTag(issue.input)} into string`;
  }
  return undefined;
}

function yamlTag(input: unknown): string {
  if (input === null) return "!!null";
  if (Array.isArray(input)) return "!!seq";
  if (typeof input === "object") return "!!map";
  if (typeof input === "boolean") return "!!bool";
  if (typeof input === "number") return Number.isInteger(input) ? "!!int" : "!!float";
  return "!!str";
}

function article(expected: string): string {
  if (expected === "object") return "a mapping";
  if (expected === "array") return "a list";
  return `a ${expected}`;
}

function describeReceived(input: unknown): string {
  if (input === undefined) return "nothing (the field is missing)";
  if (input === null) return "an empty value";
  if (Array.isArray(input)) return "a list";
  if (typeof input === "object") return "a mapping";
  return `${typeof input} ${JSON.stringify(input)}`;
}
