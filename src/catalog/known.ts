import { LRUCache } from "lru-cache";
import {
  type Document,
  isMap,
  isNode,
  isScalar,
  isSeq,
  type Node,
  type Pair,
  stringify,
  visit,
  type YAMLMap,
  type YAMLSeq,
} from "yaml";
import { headComment, trailingComment } from "../kpt/yaml/comments.js";
import { checkCatalog, findHead } from "./graph.js";
import { parseCatalog } from "./parse.js";
import { type Catalog, catalogRevisionSchema, channelEntrySchema, revisionNumber } from "./schema.js";

/**
 * Catalogs read before, by their text: what they hold, and where a published revision's record and its
 * channel entries go. catalog.yaml holds every published revision, and a publish read it three times and
 * wrote it once, each a parse (or a print) of the whole file: at 100 revisions 60 ms of the one event
 * loop a publish, growing with each. Now a publish reads the text its last write made, known here, and
 * records the new revision by writing its lines where the whole file's print would have put them
 * (`appendRevision`), itself known at once. Every other edit changes one package (a deleted package
 * marked, a withdrawn revision taken out, a skip, a promotion, …): it is made on that package's lines
 * alone (`editPackage`), so a delete in Porch's iterative test no longer parses and prints the hundreds
 * of revisions of the repository's other packages.
 *
 * Only a text whose print is itself is laid out (`canonical`): a catalog as yaml writes it, which every
 * edit's output is. A text a person wrote otherwise is edited as before, through the Document, which
 * prints the whole file; its output then is known and laid out. The values are never changed after they
 * are made; a reader is given a copy.
 */
interface Known {
  /** The catalog, read with each package's default channel filled in (catalogState's reading). */
  catalog: Catalog;
  /** Where each package's revisions and channel entries end, when the text is yaml's print of itself. */
  layout: Layout | null;
}

/**
 * Where each package is in the text, by name: its item's lines, the end of its `revisions` and of each
 * channel's `entries`, and the lines of its `deprecations` when they hold the package's deprecation alone
 * (a deleted package's mark, which its next publish takes back). `header` is where the first package's
 * item starts, the text before it the schema, `packages:` and comments; -1 where that item is not laid out.
 */
interface Layout {
  header: number;
  packages: Map<string, Place>;
}

interface Place {
  item?: Lines;
  revisions?: SeqEnd;
  channels: Map<string, SeqEnd>;
  packageDeprecation?: Lines;
}

/** Whole lines of the text: from the start of the first to the start of the line after the last. */
interface Lines {
  from: number;
  to: number;
}

/** A block sequence's end: the offset its next item's line starts at, and the column of its dashes. */
interface SeqEnd {
  at: number;
  column: number;
}

const known = new LRUCache<string, Known>({ maxSize: 32 << 20, sizeCalculation: (_, text) => text.length });

/**
 * The catalog `text` holds, read as catalogState reads it (default channels filled in); a CatalogError
 * where it cannot be read, as parseCatalog throws it. A text read before is not parsed again.
 */
export function knownCatalog(text: string, file: string): Catalog {
  const kept = known.get(text);
  if (kept) return structuredClone(kept.catalog);
  const { catalog, document } = parseCatalog(text, file, { fillDefaultChannels: true });
  remember(text, catalog, document);
  return structuredClone(catalog);
}

/**
 * Keeps what `text` holds, parsed as `document` (and read as `catalog`): laid out when the document
 * prints as the text, which is what an edit through the Document would start from.
 */
export function remember(text: string, catalog: Catalog, document: Document): void {
  const layout = document.toString({ lineWidth: 0 }) === text ? layoutOf(text, document) : null;
  known.set(text, { catalog: structuredClone(catalog), layout });
}

interface AppendRevision {
  package: string;
  revision: string;
  commit: string;
  time: string;
  channels: readonly string[];
}

/**
 * `add` recorded in `text` as addRevision's Document edit would print it, with the lines of its record
 * and its channel entries inserted at the end of their sequences; undefined where this cannot say so
 * (a text not laid out, a new package or channel, anything addRevision would refuse), for the Document
 * edit to do (and to refuse with its own words).
 */
export function appendRevision(
  text: string,
  add: AppendRevision,
): { text: string; catalog: Catalog } | undefined {
  const kept = known.get(text);
  const place = kept?.layout?.packages.get(add.package);
  const pkg = kept?.catalog.packages.find((p) => p.name === add.package);
  if (!kept?.layout || !place?.revisions || !pkg || pkg.revisions.length === 0) return undefined;
  const newest = [...pkg.revisions.map((r) => r.revision), ...(pkg.removed ?? [])]
    .map(revisionNumber)
    .reduce((a, b) => Math.max(a, b), 0);
  const record = { revision: add.revision, commit: add.commit, time: add.time };
  // what the whole file's reading would check of the lines added (the rest was checked when it was read)
  if (!catalogRevisionSchema.safeParse(record).success || revisionNumber(add.revision) <= newest)
    return undefined;
  const inserts: { at: number; lines: string }[] = [
    {
      at: place.revisions.at,
      lines: item(place.revisions, record),
    },
  ];
  const next = structuredClone(pkg);
  next.revisions.push(record);
  for (const name of add.channels) {
    const end = place.channels.get(name);
    const channel = next.channels.find((c) => c.name === name);
    if (!end || !channel || add.channels.indexOf(name) !== add.channels.lastIndexOf(name)) return undefined;
    const head = findHead(channel);
    if (!head || channel.entries.some((e) => e.name === add.revision)) return undefined;
    if (revisionNumber(head.name) > revisionNumber(add.revision)) return undefined;
    const entry = { name: add.revision, replaces: head.name };
    if (!channelEntrySchema.safeParse(entry).success) return undefined;
    channel.entries.push(entry);
    inserts.push({ at: end.at, lines: item(end, entry) });
  }
  const catalog: Catalog = {
    ...kept.catalog,
    packages: kept.catalog.packages.map((p) => (p.name === add.package ? next : p)),
  };
  if (checkCatalog(catalog).length > 0) return undefined;
  inserts.sort((a, b) => a.at - b.at);
  let out = "";
  let from = 0;
  for (const { at, lines } of inserts) {
    out += text.slice(from, at) + lines;
    from = at;
  }
  out += text.slice(from);
  known.set(out, {
    catalog,
    layout: shifted(
      kept.layout,
      inserts.map((i) => ({ at: i.at, length: i.lines.length })),
    ),
  });
  return { text: out, catalog: structuredClone(catalog) };
}

/**
 * `text` without the deprecation of package `name` as a whole, as undeprecate's Document edit would print
 * it (the `deprecations` lines cut out) where that deprecation is the package's only one; undefined where
 * this cannot say so, for the Document edit to do.
 */
export function withoutPackageDeprecation(
  text: string,
  name: string,
): { text: string; catalog: Catalog } | undefined {
  const kept = known.get(text);
  const place = kept?.layout?.packages.get(name)?.packageDeprecation;
  const pkg = kept?.catalog.packages.find((p) => p.name === name);
  if (!kept?.layout || !place || pkg?.deprecations?.length !== 1) return undefined;
  if (pkg.deprecations[0]?.reference.schema !== "olm.package") return undefined;
  const out = text.slice(0, place.from) + text.slice(place.to);
  const next = structuredClone(pkg);
  delete next.deprecations;
  const catalog: Catalog = {
    ...kept.catalog,
    packages: kept.catalog.packages.map((p) => (p.name === name ? next : p)),
  };
  known.set(out, {
    catalog,
    layout: shifted(kept.layout, [{ at: place.from, length: place.from - place.to }]),
  });
  return { text: out, catalog: structuredClone(catalog) };
}

/**
 * Package `name`'s edit `change` (addRevision's, deprecate's, …: a change of its own item, given the
 * catalog and the Document as the whole file's edit gives them, the package at index 0) made on its lines
 * alone: the text before the first package and the package's item parsed as a catalog of one package,
 * changed, printed, and put back in place of the item. yaml prints an item of `packages` the same alone as
 * among the others (the same indentation, the same keys; nothing of an item depends on its neighbours), so
 * the bytes are those of the whole file's edit, at the cost of one package instead of every package.
 * Undefined where this cannot say so — a text not known or not laid out, an item that does not print
 * as itself alone, a change that throws or would leave anything but the one package — for the whole
 * file's edit to do (and to refuse with its own words, naming the whole file's lines).
 */
export function editPackage(
  text: string,
  file: string,
  name: string,
  change: (catalog: Catalog, document: Document) => void,
): { text: string; catalog: Catalog } | undefined {
  const kept = known.get(text);
  const layout = kept?.layout;
  const item = layout?.packages.get(name)?.item;
  const p = kept?.catalog.packages.findIndex((x) => x.name === name) ?? -1;
  if (!kept || !layout || layout.header < 0 || !item || p < 0) return undefined;
  const header = text.slice(0, layout.header);
  const alone = header + text.slice(item.from, item.to);
  let printed: string;
  let after: ReturnType<typeof parseCatalog>;
  try {
    const before = parseCatalog(alone, file, { fillDefaultChannels: true });
    if (before.document.toString({ lineWidth: 0 }) !== alone) return undefined;
    change(before.catalog, before.document);
    printed = before.document.toString({ lineWidth: 0 });
    if (!printed.startsWith(header)) return undefined;
    after = parseCatalog(printed, file);
  } catch {
    return undefined;
  }
  const pkg = after.catalog.packages[0];
  const relaid = layoutOf(printed, after.document);
  const own = relaid.packages.get(name);
  if (after.catalog.packages.length !== 1 || pkg?.name !== name || relaid.header !== header.length || !own)
    return undefined;
  const lines = printed.slice(header.length);
  const out = text.slice(0, item.from) + lines + text.slice(item.to);
  // the other packages were checked when the text was read; their names, and this one's, are as they were
  const catalog: Catalog = {
    ...kept.catalog,
    packages: kept.catalog.packages.map((x, i) => (i === p ? pkg : x)),
  };
  // what follows the item moves by what it grew: as lines inserted at its end, or cut from its end
  const grown = lines.length - (item.to - item.from);
  const next = shifted(layout, [{ at: grown >= 0 ? item.to : item.to + grown, length: grown }]);
  next.packages.set(
    name,
    movedPlace(own, (at) => at - header.length + item.from),
  );
  known.set(out, { catalog, layout: next });
  return { text: out, catalog: structuredClone(catalog) };
}

/** A sequence item's lines as yaml prints `value` as an item of a block sequence at `end`'s column. */
function item(end: SeqEnd, value: unknown): string {
  const pad = " ".repeat(end.column);
  return stringify([value], { lineWidth: 0 })
    .split("\n")
    .map((line) => (line === "" ? line : pad + line))
    .join("\n");
}

/**
 * The layout after `edits` (text inserted at `at`, `length` > 0, or cut from `at`, `length` < 0): an
 * offset at or after an insertion moves by its length, one at or after a cut's end moves back by its
 * length; one at a cut's start stays (what followed the cut lines is there now).
 */
function shifted(layout: Layout, edits: readonly { at: number; length: number }[]): Layout {
  const moved = (at: number) =>
    at + edits.reduce((n, e) => ((e.length > 0 ? e.at <= at : e.at - e.length <= at) ? n + e.length : n), 0);
  return {
    header: moved(layout.header),
    packages: new Map(
      [...layout.packages].map(([name, place]) => {
        const cut = place.packageDeprecation;
        // the lines just cut are gone
        const gone =
          cut && edits.some((e) => e.length < 0 && e.at === cut.from && e.at - e.length === cut.to);
        return [name, movedPlace(gone ? { ...place, packageDeprecation: undefined } : place, moved)];
      }),
    ),
  };
}

/** `place` with each of its offsets moved by `moved`. */
function movedPlace(place: Place, moved: (at: number) => number): Place {
  const lines = (l: Lines): Lines => ({ from: moved(l.from), to: moved(l.to) });
  const end = (e: SeqEnd): SeqEnd => ({ at: moved(e.at), column: e.column });
  return {
    ...(place.item ? { item: lines(place.item) } : {}),
    ...(place.revisions ? { revisions: end(place.revisions) } : {}),
    channels: new Map([...place.channels].map(([c, e]) => [c, end(e)])),
    ...(place.packageDeprecation ? { packageDeprecation: lines(place.packageDeprecation) } : {}),
  };
}

/**
 * Where each package is in `text` (yaml's print of `document`): its item's lines, when they can be cut
 * out and printed alone (itemLines); the end of its `revisions` and of each channel's `entries`, for those
 * a new item can be appended to as lines: a block sequence of one item or more, items of maps, no comment
 * on it, on its last item, or on the lines after it (a comment there may be the sequence's own, which the
 * new item would go before).
 */
function layoutOf(text: string, document: Document): Layout {
  const layout: Layout = { header: -1, packages: new Map() };
  const packages = document.get("packages", true);
  if (!isSeq(packages)) return layout;
  for (const pkg of packages.items) {
    if (!isMap(pkg)) continue;
    const name = pkg.get("name");
    if (typeof name !== "string") continue;
    const item = itemLines(text, pkg, true);
    // the header is what comes before the first package, where that package is laid out
    if (pkg === packages.items[0]) layout.header = item?.from ?? -1;
    const revisions = seqEnd(text, pkg.get("revisions", true));
    const channels = new Map<string, SeqEnd>();
    const listed = pkg.get("channels", true);
    for (const channel of isSeq(listed) ? listed.items : []) {
      if (!isMap(channel)) continue;
      const end = seqEnd(text, channel.get("entries", true));
      const channelName = channel.get("name");
      if (end && typeof channelName === "string") channels.set(channelName, end);
    }
    const packageDeprecation = deprecationLines(text, pkg);
    layout.packages.set(name, {
      ...(item ? { item } : {}),
      ...(revisions ? { revisions } : {}),
      channels,
      ...(packageDeprecation ? { packageDeprecation } : {}),
    });
  }
  return layout;
}

/**
 * The lines of a package's `deprecations` (from the start of its key's line to the end of its last
 * item's) when it is not the package's first key, holds one item, and has no comment or blank line in it
 * or around it: cut out, they leave what yaml prints of the package without them.
 */
function deprecationLines(text: string, pkg: YAMLMap): { from: number; to: number } | undefined {
  const at = pkg.items.findIndex((pair) => isScalar(pair.key) && pair.key.value === "deprecations");
  const pair = pkg.items[at];
  if (at < 1 || !pair || !isScalar(pair.key) || !pair.key.range) return undefined;
  const seq = pair.value;
  if (!isSeq(seq) || seq.items.length !== 1 || !seq.range) return undefined;
  const from = text.lastIndexOf("\n", pair.key.range[0] - 1) + 1;
  if (text.slice(from, pair.key.range[0]).trim() !== "") return undefined;
  const newline = text.indexOf("\n", seq.range[1] - 1);
  const to = newline < 0 ? text.length : newline + 1;
  const lines = text.slice(from, to);
  if (commented(pair) || /\n[ \t]*\n/.test(lines) || /^[ \t]*(\n|#)/.test(text.slice(to, to + 4096)))
    return undefined;
  if (from >= 2 && text[from - 2] === "\n") return undefined;
  return { from, to };
}

/** Whether a comment is attached to `pair`'s key or to any node of its value (comments.ts reads yaml's slots). */
function commented(pair: Pair): boolean {
  const has = (n: unknown) => isNode(n) && (headComment(n) !== undefined || trailingComment(n) !== undefined);
  let found = has(pair.key);
  // visit calls `Node` on the value itself, then on every key and value below it
  if (!found && isNode(pair.value))
    visit(pair.value, {
      Node: (_, n) => {
        if (!has(n)) return undefined;
        found = true;
        return visit.BREAK;
      },
    });
  return found;
}

function seqEnd(text: string, seq: unknown): SeqEnd | undefined {
  if (!isSeq(seq) || seq.flow || trailingComment(seq) || seq.items.length === 0) return undefined;
  const last = (seq as YAMLSeq<Node>).items.at(-1);
  if (!isMap(last) || last.flow || trailingComment(last) || isScalar(last)) return undefined;
  for (const pair of last.items) if (isScalar(pair.value) && trailingComment(pair.value)) return undefined;
  const lines = itemLines(text, last, false);
  return lines && { at: lines.to, column: lines.column };
}

/**
 * The lines of a block sequence's item `node` (a map), from its dash's line to the end of its last line,
 * and the dash's column; undefined where a comment follows it (it may be the item's, or the sequence's),
 * or anything but what follows the sequence or, where `more` items may follow, the next one's dash.
 */
function itemLines(text: string, node: YAMLMap, more: boolean): (Lines & { column: number }) | undefined {
  if (node.flow || !node.range) return undefined;
  // the item's content starts after its dash and one space
  const from = text.lastIndexOf("\n", node.range[0] - 1) + 1;
  const column = node.range[0] - from - 2;
  if (column < 0 || text.slice(from, node.range[0]) !== `${" ".repeat(column)}- `) return undefined;
  const newline = text.indexOf("\n", node.range[1] - 1);
  const to = newline < 0 ? text.length : newline + 1;
  // what follows: no comment (blank lines are the next node's own), and the sequence ends there
  const rest = /^(?:[ \t]*\n)*([ \t]*)(\S?)/.exec(text.slice(to, to + 4096));
  if (!rest || rest[2] === "#" || (rest[2] !== "" && (rest[1]?.length ?? 0) > column)) return undefined;
  if (!more && rest[2] === "-" && rest[1]?.length === column) return undefined;
  return { from, to, column };
}
