/**
 * A small YAML model for generated merge cases: maps, lists and scalars with the comments kyaml
 * tracks (head and line on entries and items, foot on blocks), key and scalar styles, rendered to
 * text in kpt's layout (two-space indent, compact lists).
 */

export type ScalarStyle = "plain" | "single" | "double" | "literal" | "folded";
export type KeyStyle = "plain" | "single" | "double";

export interface YScalar {
  t: "s";
  v: string;
  style: ScalarStyle;
}

export interface YMap {
  t: "m";
  entries: Entry[];
  foot?: string;
}

export interface YSeq {
  t: "q";
  items: Item[];
  foot?: string;
}

export type YNode = YScalar | YMap | YSeq;

export interface Entry {
  key: string;
  keyStyle: KeyStyle;
  value: YNode;
  head?: string;
  line?: string;
}

export interface Item {
  value: YNode;
  head?: string;
  line?: string;
}

export const s = (v: string, style: ScalarStyle = "plain"): YScalar => ({ t: "s", v, style });
export const m = (...entries: [string, YNode | string][]): YMap => ({
  t: "m",
  entries: entries.map(([key, value]) => ({
    key,
    keyStyle: "plain",
    value: typeof value === "string" ? s(value) : value,
  })),
});
export const q = (...items: (YNode | string)[]): YSeq => ({
  t: "q",
  items: items.map((value) => ({ value: typeof value === "string" ? s(value) : value })),
});

export function get(map: YNode | undefined, key: string): YNode | undefined {
  return map?.t === "m" ? map.entries.find((e) => e.key === key)?.value : undefined;
}

function key(e: Entry): string {
  if (e.keyStyle === "single") return `'${e.key.replace(/'/g, "''")}'`;
  if (e.keyStyle === "double") return JSON.stringify(e.key);
  return e.key;
}

function scalar(v: YScalar, indent: string): string {
  switch (v.style) {
    case "single":
      return `'${v.v.replace(/'/g, "''")}'`;
    case "double":
      return JSON.stringify(v.v);
    case "literal":
    case "folded": {
      const body = v.v.endsWith("\n") ? v.v.slice(0, -1) : v.v;
      const chomp = v.v.endsWith("\n") ? "" : "-";
      return `${v.style === "literal" ? "|" : ">"}${chomp}\n${body
        .split("\n")
        .map((l) => (l === "" ? "" : `${indent}  ${l}`))
        .join("\n")}`;
    }
    default:
      return v.v;
  }
}

const comment = (c: string | undefined) => (c === undefined ? "" : ` # ${c}`);
const heads = (c: string | undefined, indent: string) =>
  c === undefined
    ? ""
    : c
        .split("\n")
        .map((l) => `${indent}# ${l}\n`)
        .join("");

function empty(v: YNode): string | undefined {
  if (v.t === "m" && v.entries.length === 0) return "{}";
  if (v.t === "q" && v.items.length === 0) return "[]";
  return undefined;
}

/** `key: value` lines of one entry at `indent`. */
function entry(e: Entry, indent: string): string {
  const head = heads(e.head, indent);
  const v = e.value;
  const flow = empty(v);
  if (v.t === "s" || flow !== undefined) {
    const text = flow ?? scalar(v as YScalar, indent);
    if (v.t === "s" && (v.style === "literal" || v.style === "folded")) {
      const [first, ...rest] = text.split("\n");
      return `${head}${indent}${key(e)}: ${first}${comment(e.line)}\n${rest.join("\n")}\n`;
    }
    return `${head}${indent}${key(e)}: ${text}${comment(e.line)}\n`;
  }
  const inner = v.t === "m" ? `${indent}  ` : indent;
  return `${head}${indent}${key(e)}:${comment(e.line)}\n${block(v, inner)}`;
}

function block(v: YMap | YSeq, indent: string): string {
  const body =
    v.t === "m"
      ? v.entries.map((e) => entry(e, indent)).join("")
      : v.items.map((i) => item(i, indent)).join("");
  return body + heads(v.foot, indent);
}

function item(i: Item, indent: string): string {
  const head = heads(i.head, indent);
  const v = i.value;
  const flow = empty(v);
  if (v.t === "s" || flow !== undefined) {
    const text = flow ?? scalar(v as YScalar, `${indent}  `);
    if (v.t === "s" && (v.style === "literal" || v.style === "folded")) {
      const [first, ...rest] = text.split("\n");
      return `${head}${indent}- ${first}${comment(i.line)}\n${rest.join("\n")}\n`;
    }
    return `${head}${indent}- ${text}${comment(i.line)}\n`;
  }
  // a map or list item: rendered at indent + 2, its first line moved up onto the dash (a head
  // comment on the first entry goes above the dash)
  let lifted = head;
  let body: YMap | YSeq = v;
  if (v.t === "m" && v.entries[0]?.head !== undefined) {
    lifted += heads(v.entries[0].head, indent);
    body = { ...v, entries: [{ ...v.entries[0], head: undefined }, ...v.entries.slice(1)] };
  }
  const inner = block(body, `${indent}  `);
  return `${lifted}${indent}- ${inner.slice(indent.length + 2)}`;
}

/** A document's text (a map at the root), with an optional head comment block. */
export function render(doc: YMap): string {
  return block(doc, "");
}

export function clone<T>(v: T): T {
  return structuredClone(v);
}
