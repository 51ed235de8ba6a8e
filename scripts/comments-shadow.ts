/**
 * Shadow run of the structural comment reader (src/kpt/yaml/comments/reader.ts) against today's
 * (parseYamlFile + normalizeComments, read through the door src/kpt/yaml/comments.ts): reads every YAML
 * file of the corpus with both and compares, node by node, the head, line and foot comment the door
 * reports.
 *
 * Also, with a flag each, the other contexts today's reader is called in (see readings): `--items`, a
 * ResourceList's items as a function's output is read, written by kpt's writer (`items`) and as the
 * file's own lines (`raw-items`); `--pieces`, the merge's pieces of a file;
 * `--crlf`, the file's CRLF form; `--all`: all three. Each context is compared and counted on its own.
 *
 * Today's readers are the rules, which the structural reader replaced as the default: run it with
 * PORCHLIGHT_COMMENT_READER=rules (it refuses to run without, comparing the reader with itself).
 *
 * usage: PORCHLIGHT_COMMENT_READER=rules tsx scripts/comments-shadow.ts [--generated FROM-TO] [--show N] [--structural] [--keep DIR]
 *          [--items] [--pieces] [--crlf] [--all] DIR...
 *   DIR: directories read recursively for *.yaml, *.yml and Kptfile;
 *   --generated: also the files scripts/comments-diff.ts writes for those seeds (all shapes);
 *   --show: how many differing files to print, each with its first differing node paths (default 10);
 *   --structural: print and classify only the files that differ in more than blank lines;
 *   --keep: write each differing file, in its context's form (the ResourceList, the CRLF text), to
 *     DIR/CONTEXT/N.yaml, to ask kpt which reading is right.
 * Prints the agreement figure: files where every node agrees, of the files today's reader reads, and
 * how many of the others differ only in blank lines (the reader gives their counts as data, headBlanks;
 * the shadow's door below holds them as today's readers do).
 */
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  Composer,
  type CST,
  type Document,
  isMap,
  isScalar,
  isSeq,
  type Node,
  type Pair,
  Parser,
} from "yaml";
import { readResourceList, writeResourceList } from "../src/fn/runtime/wire.js";
import { kindOf } from "../src/kpt/resource.js";
import { STRUCTURAL } from "../src/kpt/yaml/comments/apply.js";
import { normalizeComments } from "../src/kpt/yaml/comments/format-comments.js";
import { bare, withBlanks } from "../src/kpt/yaml/comments/raw.js";
import { type DocumentComments, type NodeComments, readComments } from "../src/kpt/yaml/comments/reader.js";
import {
  endFoot,
  feetOnly,
  footAbove,
  footComment,
  hasEndFeet,
  headComment,
  keyFoot,
  lineComment,
} from "../src/kpt/yaml/comments.js";
import { isEmptyDocument, isYamlFileName, parseYamlFile } from "../src/kpt/yaml/yamlfile.js";
import { parseYamlDocs } from "../src/merge/yamldoc.js";
import { ALL_SHAPES, generate } from "./comments-gen.js";

/**
 * One node's comments as the door reports them, and the marks the formatter reads beside them: where
 * kpt writes a block mapping's foot (endFoot: the mapping's end took it; keyFoot: its only key's own),
 * a key's or item's head made of feet only (feetOnly), the foot of the entry before at the start of a
 * key's head (footAbove), and, on the document, whether some mapping's end took a foot (endFeet).
 */
interface Seen {
  head?: string;
  line?: string;
  foot?: string;
  endFoot?: string;
  keyFoot?: string;
  feetOnly?: string;
  footAbove?: string;
  endFeet?: string;
  /** A mapping whose last value is a block that ends with it (not compared: where endFoot tells). */
  innerBlock?: string;
}
const COMMENTS = ["head", "line", "foot"] as const;
const MARKS = ["endFoot", "keyFoot", "feetOnly", "footAbove", "endFeet"] as const;
type Field = (typeof COMMENTS)[number] | (typeof MARKS)[number];

const flag = (b: boolean): string | undefined => (b ? "yes" : undefined);
type Table = Map<string, Seen>;

/** Today's reader, through the door. */
function today(text: string): Table[] {
  const docs = parseYamlFile(text, "x.yaml").docs;
  return docs.map((doc) => {
    normalizeComments(doc, text);
    return tableOf(doc);
  });
}

/** A document's comments, placed already, as the door reports them. */
function tableOf(doc: Document): Table {
  const table: Table = new Map();
  put(table, "doc", {
    head: headComment(doc),
    foot: footComment(doc),
    endFeet: flag(hasEndFeet(doc.contents)),
  });
  walk(doc.contents as Node | null, "$", table, (n) => ({
    head: headComment(n),
    line: lineComment(n),
    foot: footComment(n),
    endFoot: flag(isMap(n) && endFoot(n)),
    innerBlock: flag(isMap(n) && endsInBlock(n)),
    keyFoot: flag(isMap(n) && keyFoot(n)),
    feetOnly: flag(feetOnly(n)),
    footAbove: footAbove(n),
  }));
  return table;
}

function put(table: Table, path: string, seen: Seen): void {
  const clean: Seen = {};
  for (const [k, v] of Object.entries(seen)) if (v !== undefined && v !== "") clean[k as keyof Seen] = v;
  if (Object.keys(clean).length > 0) table.set(path, clean);
}

function walk(node: Node | null | undefined, path: string, table: Table, get: (n: Node) => Seen): void {
  if (!node) return;
  put(table, path, get(node));
  if (isMap(node)) {
    for (const pair of node.items as Pair<Node, Node>[]) {
      const key = pair.key;
      const name = isScalar(key) ? String(key.source ?? key.value) : "?";
      if (key) put(table, `${path}.${name}#key`, get(key));
      walk(pair.value, `${path}.${name}`, table, get);
    }
  } else if (isSeq(node)) {
    node.items.forEach((item, i) => {
      walk(item as Node, `${path}[${i}]`, table, get);
    });
  }
}

/** The new reader, turned into what the door reports: yaml.v3's model as kpt writes it. */
function shadow(text: string): Table[] {
  const cst = [...new Parser().parse(text)];
  const docs: Document[] = [...new Composer({ keepSourceTokens: true, uniqueKeys: false }).compose(cst)];
  const read = readComments(text, cst);
  const out: Table[] = [];
  docs.forEach((doc, i) => {
    if (isEmptyDocument(doc)) return;
    const dc: DocumentComments = read[i] ?? { nodes: new Map() };
    const table: Table = new Map();
    put(table, "doc", {
      head: dc.head,
      foot: documentFoot(dc.foot),
      endFeet: flag(dc.endFeet === true),
    });
    door(doc.contents as Node | null, "$", table, dc);
    out.push(table);
  });
  return out;
}

/**
 * A document's foot as the door holds it: kpt writes a blank line above it (also where the file has none,
 * as after a dedented foot: checked with kpt fn render) and none after it at the end of the document.
 */
function documentFoot(foot: string | undefined): string | undefined {
  return foot === undefined ? undefined : `\n${foot.replace(/\n+$/, "")}`;
}

/**
 * A node's comments as today's readers hold them: the blank lines after a head or a foot dropped (kpt's
 * render writes none there); `lifted`: the head of a nested block's first entry (which the block takes)
 * or of the root's first entry keeps each stretch of blank lines at the file's count (headBlanks), as a
 * plain format writes it back, unless a foot was cut from the same comment lines before it.
 */
function of(node: Node | null | undefined, dc: DocumentComments, lifted = false): NodeComments {
  const t = (node as { srcToken?: CST.Token } | null | undefined)?.srcToken;
  const c = (t && dc.nodes.get(t)) || {};
  return {
    ...c,
    head: lifted && !c.headAfterFoot ? withBlanks(c.head, c.headBlanks) : bare(c.head),
    foot: bare(c.foot),
  };
}

/**
 * The foot below a pair: its key's, after its value's when both have one (yaml.v3's decoder moves a
 * value's foot to its key only when the key has none; kpt writes the value's first).
 */
function pairFoot(pair: Pair<Node, Node>, dc: DocumentComments): string | undefined {
  const kf = of(pair.key, dc).foot;
  const vf = isScalar(pair.value) ? of(pair.value, dc).foot : undefined;
  return vf !== undefined && kf !== undefined ? `${vf}\n\n${kf}` : kf;
}

function join2(a: string | undefined, b: string | undefined): string | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return `${a}\n${b}`;
}

/**
 * yaml.v3's comments of the tree at `node`, as the door holds them: the head of a nested block
 * collection's first entry is the collection's; the foot of an entry other than a mapping's last opens
 * the next key's head (a blank line after it kept as an empty line); a block mapping's last key's foot
 * is the mapping's.
 */
function door(
  node: Node | null | undefined,
  path: string,
  table: Table,
  dc: DocumentComments,
  nested = false,
): void {
  if (!node) return;
  const block = (isMap(node) || isSeq(node)) && !node.flow && node.items.length > 0;
  const own = of(node, dc, nested && block);
  let head = own.head;
  if (isMap(node)) {
    const pairs = node.items as Pair<Node, Node>[];
    let footBefore: string | undefined;
    pairs.forEach((pair, i) => {
      const key = pair.key;
      const name = isScalar(key) ? String(key.source ?? key.value) : "?";
      const kc = of(key, dc, i === 0 && ((nested && block) || path === "$"));
      const last = i === pairs.length - 1;
      let keyHead = join2(footBefore === undefined ? undefined : `${footBefore}\n`, kc.head);
      // the foot of the entry before, handed back to its key from this one after a block value
      const prior = pairs[i - 1];
      const above =
        footBefore !== undefined && prior && isBlockNode(prior.value) && of(prior.key, dc).footFromNext
          ? `${footBefore}\n`
          : undefined;
      const onlyFeet = flag(footBefore !== undefined && kc.head === undefined);
      if (i === 0 && nested && block) {
        head = join2(head, keyHead);
        keyHead = undefined;
      }
      // an empty value holds its key's line comment
      const empty = isScalar(pair.value) && (pair.value as { srcToken?: unknown }).srcToken === undefined;
      put(table, `${path}.${name}#key`, {
        head: keyHead,
        line: empty ? undefined : kc.line,
        footAbove: above,
        feetOnly: keyHead === undefined ? undefined : onlyFeet,
      });
      footBefore = last ? undefined : pairFoot(pair, dc);
      door(pair.value, `${path}.${name}`, table, dc, true);
      if (empty && kc.line !== undefined)
        put(table, `${path}.${name}`, { ...table.get(`${path}.${name}`), line: kc.line });
    });
    const lastFoot = pairs.length > 0 ? pairFoot(pairs[pairs.length - 1]!, dc) : undefined;
    put(table, path, {
      head,
      foot: block ? lastFoot : undefined,
      line: block ? undefined : own.line,
      // (the root mapping's foot is written at column 0 whatever took it: today's reader marks none)
      endFoot: flag(own.endFoot === true && path !== "$"),
      innerBlock: flag(endsInBlock(node)),
      keyFoot: flag(own.keyFoot === true),
    });
    return;
  }
  if (isSeq(node)) {
    // an item's foot: the next item's head, or the sequence's foot after the last
    let footBefore: string | undefined;
    let foot = own.foot;
    node.items.forEach((item, i) => {
      const ic = of(item as Node, dc, i === 0 && ((nested && block) || path === "$"));
      const last = i === node.items.length - 1;
      const itemHead = join2(footBefore === undefined ? undefined : `${footBefore}\n`, ic.head);
      door(item as Node, `${path}[${i}]`, table, dc, false);
      const t = table.get(`${path}[${i}]`) ?? {};
      if (i === 0 && nested && block) {
        head = join2(head, itemHead);
        delete t.head;
      } else if (itemHead !== undefined) {
        t.head = itemHead;
        if (footBefore !== undefined && ic.head === undefined) t.feetOnly = "yes";
      } else delete t.head;
      const itemFoot = isMap(item) || isSeq(item) ? undefined : ic.foot;
      if (itemFoot !== undefined) {
        delete t.foot;
        if (last) foot = join2(itemFoot, foot);
        else footBefore = itemFoot;
      }
      if (!last || itemFoot === undefined) footBefore = itemFoot;
      if (Object.keys(t).length > 0) table.set(`${path}[${i}]`, t);
      else table.delete(`${path}[${i}]`);
    });
    put(table, path, { head, foot: block ? foot : undefined, line: block ? undefined : own.line });
    return;
  }
  put(table, path, { head: own.head, line: own.line });
}

/** A mapping whose last entry's value is a block collection, which ends where the mapping ends. */
function endsInBlock(node: Node): boolean {
  return isMap(node) && isBlockNode((node.items.at(-1) as Pair | undefined)?.value);
}

function isBlockNode(node: unknown): boolean {
  return (isMap(node) || isSeq(node)) && !node.flow && node.items.length > 0;
}

function files(dir: string, out: string[]): void {
  if (!statSync(dir).isDirectory()) {
    out.push(dir);
    return;
  }
  for (const name of readdirSync(dir)) {
    if (name === "node_modules" || name === ".git") continue;
    const p = join(dir, name);
    let st: ReturnType<typeof statSync>;
    try {
      st = statSync(p);
    } catch {
      continue;
    }
    if (st.isDirectory()) files(p, out);
    else if (isYamlFileName(p) && st.size < 2_000_000) out.push(p);
  }
}

/**
 * The foot of the root block and the document's foot are written alike (after the content, at column
 * 0); today's reader holds some on one, yaml.v3 on the other: compare them as one.
 */
function rootFootToDocument(t: Table): void {
  const root = t.get("$");
  if (root?.foot === undefined) return;
  const doc = t.get("doc") ?? {};
  doc.foot = join2(root.foot, doc.foot);
  t.set("doc", doc);
  delete root.foot;
  if (Object.keys(root).length === 0) t.delete("$");
}

/** A comment's text without its blank lines: what is left when only blank lines differ. */
function unblank(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const t = raw
    .split("\n")
    .filter((l) => l !== "")
    .join("\n");
  return t === "" ? undefined : t;
}

/**
 * A mark where it changes what is written: where a mapping's foot is written (endFoot, keyFoot) only for
 * a nested mapping with a foot whose last value is a block ending with it (else the mapping is the
 * innermost block ending there, where format.ts writes the foot anyway, and a function's trip leaves it
 * there: endFeetAfterTrip), the document's endFeet only where such an endFoot is, feetOnly only for a
 * head with a blank line among its lines (format.ts keeps the blank line after it then). `raw`: every
 * mark as set.
 */
function effective(table: Table, path: string, f: Field, raw: boolean): string | undefined {
  const seen = table.get(path) ?? {};
  if (raw) return seen[f];
  if (f === "endFoot" || f === "keyFoot")
    return path !== "$" && seen.foot !== undefined && seen.innerBlock ? seen[f] : undefined;
  if (f === "endFeet")
    return seen[f] && [...table.keys()].some((p) => effective(table, p, "endFoot", false))
      ? seen[f]
      : undefined;
  if (f === "feetOnly") return seen.head?.replace(/\n+$/, "").includes("\n\n") ? seen[f] : undefined;
  return seen[f];
}

interface Diff {
  field: Field;
  text: string;
}

function compare(a: Table[], b: Table[], blanks = true, raw = false): Diff[] {
  const diffs: Diff[] = [];
  if (a.length !== b.length)
    diffs.push({ field: "head", text: `documents: today ${a.length}, shadow ${b.length}` });
  for (let d = 0; d < Math.min(a.length, b.length); d++) {
    for (const t of [a[d]!, b[d]!]) rootFootToDocument(t);
    const paths = new Set([...a[d]!.keys(), ...b[d]!.keys()]);
    for (const p of paths) {
      const x = a[d]!.get(p) ?? {};
      const y = b[d]!.get(p) ?? {};
      for (const f of COMMENTS) {
        const same = blanks ? x[f] === y[f] : unblank(x[f]) === unblank(y[f]);
        if (!same)
          diffs.push({
            field: f,
            text: `doc ${d} ${p} ${f}: today ${JSON.stringify(x[f])}, shadow ${JSON.stringify(y[f])}`,
          });
      }
      for (const f of MARKS) {
        const [u, v] = [effective(a[d]!, p, f, raw), effective(b[d]!, p, f, raw)];
        if (u !== v)
          diffs.push({
            field: f,
            text: `doc ${d} ${p} ${f}: today ${JSON.stringify(u)}, shadow ${JSON.stringify(v)}`,
          });
      }
    }
  }
  return diffs;
}

/** The contexts today's reader is called in, each compared on its own (see readings). */
const CONTEXTS = ["file", "items", "raw-items", "pieces", "crlf"] as const;
type Context = (typeof CONTEXTS)[number];

/**
 * Both readings of a corpus file in one context: today's tables, and a thunk for the shadow's; undefined
 * where today's reader does not read it or the context does not apply (a file already in CRLF; items:
 * a file with a document whose root is no mapping, which no ResourceList holds).
 * - file: the file, as a package's file is read;
 * - items: its documents written as a ResourceList's items as porchlight's function wire writes them
 *   (wire.ts's writeResourceList, kpt's writer: `kpt fn source` prints the same but for the path
 *   annotations), or the file itself where it is a ResourceList (`kpt fn source DIR` into a file), read back as the wire reads a function's output (readResourceList: each item a
 *   document, its comments placed with listItem/end), against the structural reading of the whole
 *   ResourceList text, each item's nodes re-rooted (shadowItems);
 * - raw-items: the same with the documents' own lines as the items (rawItemsText), as a function that
 *   writes YAML its own way might give them back;
 * - pieces: the file cut into the merge's pieces (src/merge/yamldoc.ts's parseYamlDocs: fileStart,
 *   pieceStart, the failsafe schema), against the structural reading of the whole file, document by
 *   document (the reader knows where kyaml's cut leaves each `---` line);
 * - crlf: the file with its lines ended in CRLF, as scripts/comments-diff.ts --crlf writes it.
 */
function readings(text: string, ctx: Context): Reading | undefined {
  switch (ctx) {
    case "file":
      return { a: today(text), b: () => shadow(text), text };
    case "crlf": {
      if (text.includes("\r")) return undefined;
      const crlf = text.replaceAll("\n", "\r\n");
      return { a: today(crlf), b: () => shadow(crlf), text: crlf };
    }
    case "pieces":
      return { a: parseYamlDocs(text, "x.yaml").map((d) => tableOf(d.doc)), b: () => shadow(text), text };
    case "items":
    case "raw-items": {
      const list = ctx === "items" ? itemsText(text) : rawItemsText(text);
      if (list === undefined) return undefined;
      return { a: readResourceList(list, "x").items.map(tableOf), b: () => shadowItems(list), text: list };
    }
  }
}

/** Today's tables, the shadow's (a thunk), and the text both read (the context's form of the file). */
interface Reading {
  a: Table[];
  b: () => Table[];
  text: string;
}

/**
 * A file's documents as porchlight's wire writes them to a function: a ResourceList's items; a file that
 * is a ResourceList already (a function's output, `kpt fn source`'s) as it is.
 */
function itemsText(text: string): string | undefined {
  const docs = parseYamlFile(text, "x.yaml").docs;
  if (docs.length === 0 || !docs.every((d) => isMap(d.contents))) return undefined;
  if (docs.length === 1 && kindOf(docs[0]!) === "ResourceList") return text;
  for (const d of docs) normalizeComments(d, text);
  return writeResourceList({ items: docs });
}

/**
 * A file's documents as a function that writes YAML its own way might give them back: each document's
 * lines as they are, two columns in, under `items:` (its first content line's two new columns a `- `;
 * `---` lines cut out). Only where every document is a mapping of block style.
 */
function rawItemsText(text: string): string | undefined {
  const docs = parseYamlFile(text, "x.yaml").docs;
  if (docs.length === 0 || !docs.every((d) => isMap(d.contents) && !d.contents.flow)) return undefined;
  if (docs.length === 1 && kindOf(docs[0]!) === "ResourceList") return undefined;
  if (/^(%|\.\.\.)/m.test(text) || text.includes("\t")) return undefined;
  const items: string[] = [];
  for (const chunk of text.split(/^---(?:[ \t].*)?\n/m)) {
    const lines = chunk.replace(/\n$/, "").split("\n");
    const first = lines.findIndex((l) => /^\s*[^\s#]/.test(l));
    if (first < 0) continue;
    items.push(lines.map((l, i) => (i === first ? `- ${l}` : l === "" ? "" : `  ${l}`)).join("\n"));
  }
  if (items.length !== docs.length) return undefined;
  return `apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n${items.join("\n")}\n`;
}

/**
 * The structural reading of a ResourceList's text, each item's tree as the door reports it for a
 * document of its own: the paths under `$.items[i]` re-rooted at `$`. The item is yaml.v3's node of the
 * sequence, which kpt takes out of the list: its own comments only, no document's (a head over the
 * first `- ` too, which door gives the sequence); the root mapping's marks as for a document's root.
 */
function shadowItems(list: string): Table[] {
  const cst = [...new Parser().parse(list)];
  const [doc] = [...new Composer({ keepSourceTokens: true, uniqueKeys: false }).compose(cst)];
  const [dc] = readComments(list, cst);
  if (!doc || !dc || !isMap(doc.contents)) return [];
  const whole: Table = new Map();
  door(doc.contents as Node, "$", whole, dc);
  const items = doc.contents.get("items", true);
  if (!isSeq(items)) return [];
  return items.items.map((_, i) => {
    const prefix = `$.items[${i}]`;
    const t: Table = new Map();
    for (const [p, seen] of whole) {
      const rest = p.slice(prefix.length);
      if (p.startsWith(prefix) && (rest === "" || rest.startsWith(".") || rest.startsWith("[")))
        t.set(`$${rest}`, { ...seen });
    }
    const root = t.get("$") ?? {};
    delete root.endFoot;
    // the head above the first `- `: the item's own in yaml.v3 (door gives it to the sequence, where a
    // file's is written); kpt writes it over the item's file
    if (i === 0) root.head = of(items.items[0] as Node, dc).head;
    t.delete("$");
    put(t, "$", root);
    if ([...t].some(([p, seen]) => p !== "$" && seen.endFoot)) t.set("doc", { endFeet: "yes" });
    return t;
  });
}

interface Tally {
  read: number;
  same: number;
  crashed: number;
  blankOnly: number;
  classes: Map<string, number>;
  /** Files differing in each field: the marks where they change what is written, and as set. */
  byField: Map<string, number>;
  shown: number;
}

function compareAll(
  inputs: readonly { name: string; text: string }[],
  ctx: Context,
  o: { show: number; structural: boolean; asSet: boolean; keep?: string },
): Tally {
  const tally: Tally = {
    read: 0,
    same: 0,
    crashed: 0,
    blankOnly: 0,
    classes: new Map(),
    byField: new Map(),
    shown: 0,
  };
  const count = (key: string): void => {
    tally.byField.set(key, (tally.byField.get(key) ?? 0) + 1);
  };
  for (const { name, text } of inputs) {
    // each comparison takes fresh tables (compare folds the root's foot into the document's)
    const fresh = (): Reading | undefined => {
      try {
        return readings(text, ctx);
      } catch {
        return undefined;
      }
    };
    const r = fresh();
    if (!r) continue;
    tally.read++;
    let diffs: Diff[];
    try {
      diffs = compare(r.a, r.b(), true, o.asSet);
      const again = fresh()!;
      for (const f of new Set(compare(again.a, again.b(), true, true).map((d) => d.field)))
        if ((MARKS as readonly string[]).includes(f)) count(`${f} (as set)`);
    } catch (e) {
      tally.crashed++;
      diffs = [{ field: "head", text: `shadow reader failed: ${(e as Error).message}` }];
    }
    for (const f of new Set(diffs.map((d) => d.field))) count(f);
    if (diffs.length === 0) {
      tally.same++;
      continue;
    }
    let apart: Diff[] = diffs;
    try {
      const again = fresh()!;
      apart = compare(again.a, again.b(), false);
    } catch {
      // (counted above)
    }
    if (apart.length === 0) tally.blankOnly++;
    if (o.structural) {
      if (apart.length === 0) continue;
      diffs = apart;
    }
    const cls = diffs[0]!.text.replace(/^doc \d+ \S+ /, "").replace(/: today.*/, "");
    tally.classes.set(cls, (tally.classes.get(cls) ?? 0) + 1);
    if (o.keep) {
      mkdirSync(join(o.keep, ctx), { recursive: true });
      writeFileSync(join(o.keep, ctx, `${tally.read - tally.same}.yaml`), r.text);
    }
    if (tally.shown++ < o.show) {
      console.log(`--- [${ctx}] ${name}${o.keep ? ` (kept as ${ctx}/${tally.read - tally.same}.yaml)` : ""}`);
      for (const d of diffs.slice(0, 4)) console.log(`  ${d.text}`);
    }
  }
  return tally;
}

function report(ctx: Context, t: Tally): void {
  console.log(`\n== ${ctx}`);
  console.log(
    `classes (first difference per file): ${JSON.stringify([...t.classes].sort((x, y) => y[1] - x[1]))}`,
  );
  const fields = [...COMMENTS, ...MARKS].flatMap((f) =>
    (MARKS as readonly string[]).includes(f) ? [f, `${f} (as set)`] : [f],
  );
  console.log(`files differing, per field: ${fields.map((f) => `${f} ${t.byField.get(f) ?? 0}`).join(", ")}`);
  const pct = (n: number): string => `${((100 * n) / Math.max(t.read, 1)).toFixed(2)}%`;
  console.log(`agreement: ${t.same} of ${t.read} files (${pct(t.same)}); shadow failed on ${t.crashed}`);
  console.log(
    `differing only in blank lines: ${t.blankOnly}; agreement but for them: ${t.same + t.blankOnly} (${pct(t.same + t.blankOnly)})`,
  );
}

function main(): number {
  if (STRUCTURAL) {
    process.stderr.write(
      "comments-shadow compares the structural reader with the rules: run it with PORCHLIGHT_COMMENT_READER=rules\n",
    );
    return 2;
  }
  const args = process.argv.slice(2);
  const opt = (name: string): string | undefined => {
    const i = args.indexOf(`--${name}`);
    if (i < 0) return undefined;
    const v = args[i + 1];
    args.splice(i, 2);
    return v;
  };
  const has = (name: string): boolean => {
    const i = args.indexOf(`--${name}`);
    if (i >= 0) args.splice(i, 1);
    return i >= 0;
  };
  const show = Number(opt("show") ?? "10");
  const structural = has("structural");
  const asSet = has("as-set");
  const all = has("all");
  const contexts: Context[] = ["file"];
  for (const ctx of ["items", "pieces", "crlf"] as const)
    if (has(ctx) || all) contexts.push(...(ctx === "items" ? (["items", "raw-items"] as const) : [ctx]));
  const generated = opt("generated");
  const keep = opt("keep");
  const inputs: { name: string; text: string }[] = [];
  const paths: string[] = [];
  for (const dir of args) files(dir, paths);
  for (const p of paths) inputs.push({ name: p, text: readFileSync(p, "utf8") });
  if (generated) {
    const [from, to] = generated.split("-").map(Number) as [number, number];
    const shapes = new Set(ALL_SHAPES);
    for (let seed = from; seed <= to; seed++) {
      for (const [name, text] of generate(seed, shapes)) inputs.push({ name: `gen:${seed}/${name}`, text });
    }
  }
  const tallies = contexts.map(
    (ctx) => [ctx, compareAll(inputs, ctx, { show, structural, asSet, keep })] as const,
  );
  for (const [ctx, t] of tallies) report(ctx, t);
  if (tallies.length > 1)
    console.log(
      `\nper context, files differing / compared: ${tallies.map(([c, t]) => `${c} ${t.read - t.same}/${t.read}`).join(", ")}`,
    );
  return 0;
}

process.exitCode = main();
