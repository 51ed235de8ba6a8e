import { type Entry, type Item, m, s, type YMap, type YNode, type YSeq } from "./model.js";
import { pick, type Rand } from "./resources.js";

/**
 * Random edits to a generated document, as either side of an update would make them: values, fields,
 * list elements, head / line / foot comments (added, changed, removed), key and scalar styles, and
 * annotations emptied or removed. Identity (apiVersion, kind, metadata name and namespace) and kpt's
 * merge marks stay.
 */

interface Site {
  path: string[];
  parent: YMap | YSeq;
  entry?: Entry;
  item?: Item;
}

const PROTECTED = new Set(["apiVersion", "kind", "metadata", "metadata.name", "metadata.namespace"]);
const MARKS = "internal.kpt.dev/upstream-identifier";

function sites(node: YNode, path: string[], out: Site[]): void {
  if (node.t === "m") {
    for (const e of node.entries) {
      const p = [...path, e.key];
      out.push({ path: p, parent: node, entry: e });
      sites(e.value, p, out);
    }
  } else if (node.t === "q") {
    node.items.forEach((it, i) => {
      const p = [...path, String(i)];
      out.push({ path: p, parent: node, item: it });
      sites(it.value, p, out);
    });
  }
}

function blocks(node: YNode, path: string[], out: { path: string[]; node: YMap | YSeq }[]): void {
  if (node.t === "s") return;
  out.push({ path, node });
  if (node.t === "m") for (const e of node.entries) blocks(e.value, [...path, e.key], out);
  else
    node.items.forEach((it, i) => {
      blocks(it.value, [...path, String(i)], out);
    });
}

const isProtected = (site: Site) => {
  const p = site.path.join(".");
  return PROTECTED.has(p) || site.entry?.key === MARKS;
};

const MERGE_KEYS = new Set(["name", "port", "containerPort", "host", "protocol", "mountPath"]);

const VALUES = ["1", "2", "two", "yes", "on", "3.10", "true", "nginx:1.2", "a b", "010", "x"];

function newValue(rand: Rand, tag: string): YNode {
  return rand() < 0.85 ? scalarValue(rand, tag) : m([`k${tag}`, `v${tag}`]);
}

function scalarValue(rand: Rand, tag: string): YNode {
  const r = rand() * 0.85;
  if (r < 0.6) return s(`${pick(rand, VALUES)}${rand() < 0.5 ? tag : ""}`);
  if (r < 0.75) return s(`v-${tag}`, pick(rand, ["single", "double"]));
  return s(`first ${tag}\nsecond\n`, "literal");
}

function text(rand: Rand, tag: string): string {
  const base = `${tag}-${Math.floor(rand() * 100)}`;
  return rand() < 0.15 ? `${base}\nmore ${tag}` : base;
}

type Op = (doc: YMap, rand: Rand, tag: string) => boolean;

const setScalar: Op = (doc, rand, tag) => {
  const all: Site[] = [];
  sites(doc, [], all);
  const cands = all.filter((x) => !isProtected(x) && (x.entry ?? x.item)!.value.t === "s");
  if (cands.length === 0) return false;
  const site = pick(rand, cands);
  const holder = (site.entry ?? site.item)!;
  // a scalar stays a scalar: kpt refuses a field whose kind changes (see the hand cases)
  holder.value = rand() < 0.7 ? s(`${pick(rand, VALUES)}-${tag}`) : scalarValue(rand, tag);
  return true;
};

const scalarStyle: Op = (doc, rand) => {
  const all: Site[] = [];
  sites(doc, [], all);
  const cands = all.filter((x) => !isProtected(x) && (x.entry ?? x.item)!.value.t === "s");
  if (cands.length === 0) return false;
  const site = pick(rand, cands);
  const v = (site.entry ?? site.item)!.value;
  if (v.t !== "s") return false;
  v.style = v.v.includes("\n")
    ? pick(rand, ["literal", "double"])
    : pick(rand, ["plain", "single", "double"]);
  if (v.style === "plain" && !/^[\w.:/-]+$/.test(v.v)) v.style = "double";
  return true;
};

const addEntry: Op = (doc, rand, tag) => {
  const bl: { path: string[]; node: YMap | YSeq }[] = [];
  blocks(doc, [], bl);
  const maps = bl.filter((b) => b.node.t === "m") as { path: string[]; node: YMap }[];
  const target = pick(rand, maps).node;
  const key = `f${tag}${Math.floor(rand() * 10)}`;
  if (target.entries.some((e) => e.key === key)) return false;
  const e: Entry = {
    key,
    keyStyle: rand() < 0.2 ? pick(rand, ["single", "double"]) : "plain",
    value: newValue(rand, tag),
  };
  if (rand() < 0.3) e.head = text(rand, tag);
  if (rand() < 0.3) e.line = text(rand, tag).split("\n")[0];
  target.entries.splice(Math.floor(rand() * (target.entries.length + 1)), 0, e);
  return true;
};

const removeEntry: Op = (doc, rand) => {
  const all: Site[] = [];
  sites(doc, [], all);
  const cands = all.filter((x) => x.entry && !isProtected(x));
  if (cands.length === 0) return false;
  const site = pick(rand, cands);
  const map = site.parent as YMap;
  map.entries = map.entries.filter((e) => e !== site.entry);
  return true;
};

const addItem: Op = (doc, rand, tag) => {
  const bl: { path: string[]; node: YMap | YSeq }[] = [];
  blocks(doc, [], bl);
  const seqs = bl.filter((b) => b.node.t === "q") as { path: string[]; node: YSeq }[];
  if (seqs.length === 0) return false;
  const seq = pick(rand, seqs).node;
  const first = seq.items[0]?.value;
  let value: YNode;
  if (first?.t === "m") {
    // a new element: every merge key fresh (a list with repeated merge keys is invalid input)
    value = structuredClone(first);
    for (const e of value.entries) {
      if (!MERGE_KEYS.has(e.key)) continue;
      const numeric = e.key === "containerPort" || e.key === "port";
      e.value = s(`${numeric ? 9000 + Math.floor(rand() * 900) : `n${tag}${Math.floor(rand() * 900)}`}`);
    }
  } else value = s(`item-${tag}${Math.floor(rand() * 10)}`);
  const it: Item = { value };
  if (rand() < 0.3) it.head = text(rand, tag);
  if (value.t === "s" && rand() < 0.3) it.line = text(rand, tag).split("\n")[0];
  seq.items.splice(Math.floor(rand() * (seq.items.length + 1)), 0, it);
  return true;
};

const removeItem: Op = (doc, rand) => {
  const all: Site[] = [];
  sites(doc, [], all);
  const cands = all.filter((x) => x.item);
  if (cands.length === 0) return false;
  const site = pick(rand, cands);
  const seq = site.parent as YSeq;
  seq.items = seq.items.filter((i) => i !== site.item);
  return true;
};

function commentOp(which: "head" | "line"): Op {
  return (doc, rand, tag) => {
    const all: Site[] = [];
    sites(doc, [], all);
    const cands = all.filter((x) => {
      if (x.path.join(".") === "metadata" && which === "line") return false;
      if (x.item && which === "line" && x.item.value.t !== "s") return false;
      return true;
    });
    const withComment = cands.filter((x) => (x.entry ?? x.item)![which] !== undefined);
    const r = rand();
    if (withComment.length > 0 && r < 0.5) {
      const site = pick(rand, withComment);
      const h = (site.entry ?? site.item)!;
      if (r < 0.25) h[which] = undefined;
      else h[which] = which === "line" ? text(rand, tag).split("\n")[0] : text(rand, tag);
      return true;
    }
    const site = pick(rand, cands);
    const h = (site.entry ?? site.item)!;
    h[which] = which === "line" ? text(rand, tag).split("\n")[0] : text(rand, tag);
    return true;
  };
}

const foot: Op = (doc, rand, tag) => {
  const bl: { path: string[]; node: YMap | YSeq }[] = [];
  blocks(doc, [], bl);
  const b = pick(rand, bl).node;
  b.foot = b.foot !== undefined && rand() < 0.5 ? undefined : text(rand, tag);
  return true;
};

const keyStyle: Op = (doc, rand) => {
  const all: Site[] = [];
  sites(doc, [], all);
  const cands = all.filter((x) => x.entry && !isProtected(x));
  if (cands.length === 0) return false;
  const e = pick(rand, cands).entry!;
  e.keyStyle = pick(rand, ["plain", "single", "double"] as const);
  return true;
};

const annotations: Op = (doc, rand) => {
  const md = doc.entries.find((e) => e.key === "metadata")?.value;
  if (md?.t !== "m") return false;
  const ann = md.entries.find((e) => e.key === "annotations");
  if (!ann) return false;
  if (rand() < 0.5) ann.value = m();
  else md.entries = md.entries.filter((e) => e !== ann);
  return true;
};

const OPS: [Op, number][] = [
  [setScalar, 3],
  [scalarStyle, 1],
  [addEntry, 2],
  [removeEntry, 1],
  [addItem, 2],
  [removeItem, 1],
  [commentOp("head"), 3],
  [commentOp("line"), 3],
  [foot, 1],
  [keyStyle, 1],
  [annotations, 1],
];
const TOTAL = OPS.reduce((a, [, w]) => a + w, 0);

/** Applies 1–3 random edits to `doc` (in place); returns the names of the edits made. */
export function mutate(doc: YMap, rand: Rand, tag: string): void {
  const n = 1 + Math.floor(rand() * 3);
  for (let i = 0; i < n; i++) {
    let r = rand() * TOTAL;
    for (const [op, w] of OPS) {
      r -= w;
      if (r < 0) {
        op(doc, rand, `${tag}${i}`);
        break;
      }
    }
  }
}
