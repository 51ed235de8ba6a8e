import { type Document, isAlias, isMap, isScalar, isSeq, type Node } from "yaml";

/**
 * kpt's Kptfile Go struct (pkg/api/kptfile/v1 at v1.0.0-beta.56), as far as its reading and writing
 * shape the bytes: kpt never writes a Kptfile it read, it decodes it into the struct and encodes the
 * struct. So, as yaml.v3 does:
 *
 * - every leaf is a Go string: a plain `1`, `true` or `1.0` is read as its text and written quoted
 *   (`"1"`), a `null` or empty value is the empty string (and left out of a list);
 * - fields come out in the struct's order, map keys sorted;
 * - `omitempty` leaves out empty strings, lists and maps, but a pointer to a struct (`info`,
 *   `pipeline`, `status`, …) only when it is absent: an emptied `pipeline` is written `pipeline: {}`;
 * - the fields without `omitempty` (a condition's `type` and `status`, a readiness gate's
 *   `conditionType`) are written even when empty.
 *
 * Fields the struct does not know (kpt refuses them; porchlight keeps them) follow the known ones,
 * sorted, their values as written.
 */

type Shape =
  | { kind: "string" }
  | { kind: "strings" }
  | { kind: "stringMap" }
  | { kind: "list"; of: Struct }
  | Struct;

interface Struct {
  kind: "struct";
  /** A pointer to a struct: written (as `{}` when empty) whenever it is present. */
  pointer?: boolean;
  /** Omitted when every field is empty (a struct value with `omitempty`). */
  omitZero?: boolean;
  fields: [name: string, shape: Shape, required?: boolean][];
}

const STRING: Shape = { kind: "string" };
const STRINGS: Shape = { kind: "strings" };
const STRING_MAP: Shape = { kind: "stringMap" };

const struct = (fields: Struct["fields"], opts: Partial<Struct> = {}): Struct => ({
  kind: "struct",
  fields,
  ...opts,
});

const SELECTOR = struct([
  ["apiVersion", STRING],
  ["kind", STRING],
  ["name", STRING],
  ["namespace", STRING],
  ["labels", STRING_MAP],
  ["annotations", STRING_MAP],
]);

const FUNCTION = struct([
  ["image", STRING],
  ["exec", STRING],
  ["configPath", STRING],
  ["configMap", STRING_MAP],
  ["name", STRING],
  ["selectors", { kind: "list", of: SELECTOR }],
  ["exclude", { kind: "list", of: SELECTOR }],
]);

const KPTFILE_STRUCT: Struct = struct([
  ["apiVersion", STRING],
  ["kind", STRING],
  [
    "metadata",
    struct(
      [
        ["name", STRING],
        ["namespace", STRING],
        ["labels", STRING_MAP],
        ["annotations", STRING_MAP],
      ],
      { omitZero: true },
    ),
  ],
  [
    "upstream",
    struct(
      [
        ["type", STRING],
        [
          "git",
          struct(
            [
              ["repo", STRING],
              ["directory", STRING],
              ["ref", STRING],
            ],
            { pointer: true },
          ),
        ],
        ["updateStrategy", STRING],
      ],
      { pointer: true },
    ),
  ],
  [
    "upstreamLock",
    struct(
      [
        ["type", STRING],
        [
          "git",
          struct(
            [
              ["repo", STRING],
              ["directory", STRING],
              ["ref", STRING],
              ["commit", STRING],
            ],
            {
              pointer: true,
            },
          ),
        ],
      ],
      { pointer: true },
    ),
  ],
  [
    "info",
    struct(
      [
        ["site", STRING],
        ["emails", STRINGS],
        ["license", STRING],
        ["licenseFile", STRING],
        ["description", STRING],
        ["keywords", STRINGS],
        ["man", STRING],
        ["readinessGates", { kind: "list", of: struct([["conditionType", STRING, true]]) }],
      ],
      { pointer: true },
    ),
  ],
  [
    "pipeline",
    struct(
      [
        ["mutators", { kind: "list", of: FUNCTION }],
        ["validators", { kind: "list", of: FUNCTION }],
      ],
      { pointer: true },
    ),
  ],
  [
    "inventory",
    struct(
      [
        ["namespace", STRING],
        ["name", STRING],
        ["inventoryID", STRING],
        ["labels", STRING_MAP],
        ["annotations", STRING_MAP],
      ],
      { pointer: true },
    ),
  ],
  [
    "status",
    struct(
      [
        [
          "conditions",
          {
            kind: "list",
            of: struct([
              ["type", STRING, true],
              ["status", STRING, true],
              ["reason", STRING],
              ["message", STRING],
            ]),
          },
        ],
      ],
      { pointer: true },
    ),
  ],
]);

/** The names of the Kptfile's lists of structs (where kyaml's walk starts a new field path). */
export const STRUCT_LISTS = new Set([
  "mutators",
  "validators",
  "selectors",
  "exclude",
  "readinessGates",
  "conditions",
]);

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function isEmptyValue(v: unknown): boolean {
  if (v === undefined || v === null || v === "") return true;
  if (Array.isArray(v)) return v.length === 0;
  if (isObject(v)) return Object.keys(v).length === 0;
  return false;
}

/** A Go string read from a plain value: its text (`1.0` stays `1.0`); null is the empty string. */
function goString(v: unknown): string {
  if (v === undefined || v === null) return "";
  if (typeof v === "string") return v;
  if (typeof v === "object") return JSON.stringify(v);
  return String(v);
}

/** A value not in the struct: kept as written, its empty fields left out (porchlight's old rule). */
function unknownValue(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(unknownValue);
  if (!isObject(v)) return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) if (!isEmptyValue(x)) out[k] = unknownValue(x);
  return out;
}

function shaped(v: unknown, shape: Shape): unknown {
  switch (shape.kind) {
    case "string":
      return goString(v);
    case "strings":
      // yaml.v3 leaves a null out of a Go slice (a null map value is the empty string)
      return Array.isArray(v) ? v.filter((e) => e !== null).map(goString) : v;
    case "stringMap": {
      if (!isObject(v)) return v;
      const out: Record<string, string> = {};
      for (const k of Object.keys(v).sort()) out[k] = goString(v[k]);
      return out;
    }
    case "list":
      return Array.isArray(v) ? v.filter((e) => e !== null).map((e) => shaped(e, shape.of)) : v;
    case "struct":
      return shapedStruct(v, shape);
  }
}

function shapedStruct(v: unknown, s: Struct): unknown {
  if (!isObject(v)) return v;
  const out: Record<string, unknown> = {};
  for (const [name, shape, required] of s.fields) {
    const x = v[name];
    if ((x === undefined || x === null) && !required) continue;
    const value = shaped(x, shape);
    const keep =
      required ||
      (shape.kind === "struct" && shape.pointer
        ? value !== null
        : shape.kind === "struct" && !shape.omitZero
          ? true
          : !isEmptyValue(value));
    if (keep) out[name] = value;
  }
  const known = new Set(s.fields.map(([name]) => name));
  for (const k of Object.keys(v)
    .filter((k) => !known.has(k))
    .sort()) {
    if (!isEmptyValue(v[k])) out[k] = unknownValue(v[k]);
  }
  return out;
}

/** A Kptfile read as plain data, as kpt's struct holds it and writes it (fields in order, leaves strings). */
export function asKptStruct<T>(kf: T): T {
  return shaped(kf, KPTFILE_STRUCT) as T;
}

/**
 * A Kptfile document as plain data, the struct's string leaves read as yaml.v3 reads them into a Go
 * string: a plain scalar's own text (`1.0`, `0x10`), not the number it denotes.
 */
export function kptfileData(doc: Document): unknown {
  return fromNode(doc.contents, KPTFILE_STRUCT, doc);
}

function fromNode(node: unknown, shape: Shape | undefined, doc: Document): unknown {
  if (isAlias(node)) return fromNode(node.resolve(doc), shape, doc);
  if (shape === undefined) return (node as Node | null)?.toJS(doc) ?? null;
  if (isScalar(node)) {
    if (node.value === null || typeof node.value === "string") return node.value;
    const text =
      (shape.kind === "string" || shape.kind === "strings" || shape.kind === "stringMap") && node.source;
    return text === undefined || text === false ? node.toJS(doc) : text;
  }
  if (isSeq(node)) {
    const of = shape.kind === "strings" ? STRING : shape.kind === "list" ? shape.of : undefined;
    return node.items.map((e) => fromNode(e, of, doc));
  }
  if (isMap(node)) {
    const out: Record<string, unknown> = {};
    for (const pair of node.items) {
      const key = isScalar(pair.key) ? goString(pair.key.source ?? pair.key.value) : String(pair.key);
      const fieldShape =
        shape.kind === "struct"
          ? shape.fields.find(([name]) => name === key)?.[1]
          : shape.kind === "stringMap"
            ? STRING
            : undefined;
      out[key] = fromNode(pair.value, fieldShape, doc);
    }
    return out;
  }
  return (node as Node | null)?.toJS(doc) ?? null;
}
