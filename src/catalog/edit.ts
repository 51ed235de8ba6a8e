import { type Document, isMap, isScalar, isSeq, type YAMLSeq } from "yaml";
import { CatalogError } from "./errors.js";
import { findHead, findPackage, reachingHead, upgradePath, upgradesFrom } from "./graph.js";
import { appendRevision, editPackage, knownCatalog, remember, withoutPackageDeprecation } from "./known.js";
import { parseCatalog } from "./parse.js";
import {
  CATALOG_FILE,
  type Catalog,
  type CatalogPackage,
  type ChannelEntry,
  type Deprecation,
  type DeprecationReference,
  revisionNumber,
} from "./schema.js";

/**
 * The catalog operations. Each takes the file's text and returns the new text, edited in place through the
 * yaml Document API so comments, order and formatting of what it does not touch stay as they were, and
 * checked against the channel rules before it is returned: an operation that would break them throws a
 * CatalogError and changes nothing.
 */
export interface CatalogEdit {
  text: string;
  catalog: Catalog;
}

export interface AddRevision {
  package: string;
  revision: string;
  commit: string;
  /** Publish time, RFC 3339 (the caller's clock; the catalog has none). */
  time: string;
  channels?: readonly string[];
}

/**
 * Records a published revision; in each channel named, it replaces the channel's head. A catalog known
 * and laid out (known.ts) has the revision's lines inserted where the Document's print puts them, the
 * same bytes without reading or printing the whole file.
 */
export function addRevision(text: string, add: AddRevision, file = CATALOG_FILE): CatalogEdit {
  const appended = appendRevision(text, { ...add, channels: add.channels ?? [] });
  if (appended) return appended;
  return edit(text, file, add.package, (catalog, doc) => {
    let p = catalog.packages.findIndex((x) => x.name === add.package);
    if (p < 0) {
      appendTo(doc, ["packages"], { name: add.package, revisions: [], channels: [] });
      p = catalog.packages.length;
      catalog.packages.push({ name: add.package, revisions: [], channels: [] });
    }
    const pkg = catalog.packages[p] as CatalogPackage;
    if (pkg.revisions.some((r) => r.revision === add.revision)) {
      throw new CatalogError(`${add.package} ${add.revision} is in the catalog already`);
    }
    if (pkg.removed?.includes(add.revision)) {
      throw new CatalogError(
        `${add.package} ${add.revision} was removed from the catalog; it is not added again`,
      );
    }
    const newest = [...pkg.revisions.map((r) => r.revision), ...(pkg.removed ?? [])]
      .map(revisionNumber)
      .reduce((a, b) => Math.max(a, b), 0);
    if (revisionNumber(add.revision) <= newest) {
      throw new CatalogError(
        `${add.package} ${add.revision} is older than v${newest}, which is in the catalog already`,
      );
    }
    appendTo(doc, ["packages", p, "revisions"], {
      revision: add.revision,
      commit: add.commit,
      time: add.time,
    });
    for (const channel of add.channels ?? []) addToChannel(doc, pkg, p, add.revision, channel);
  });
}

/** Adds a published revision to a channel, replacing the channel's head (which must be older). */
export function promote(
  text: string,
  pkgName: string,
  revision: string,
  channel: string,
  file = CATALOG_FILE,
): CatalogEdit {
  return edit(text, file, pkgName, (catalog, doc) => {
    const { pkg, p } = requirePackage(catalog, pkgName);
    if (!pkg.revisions.some((r) => r.revision === revision)) {
      throw new CatalogError(`${pkgName} has no published revision ${revision}`);
    }
    addToChannel(doc, pkg, p, revision, channel);
  });
}

/**
 * Skips a revision in every channel holding it: the entry that replaced it now replaces what it replaced,
 * and lists it (and whatever it skipped) under `skips`, so downstreams on it (or before it) jump straight
 * over it and it is never offered again. A channel head cannot be skipped: publish a newer revision first.
 */
export function skip(text: string, pkgName: string, revision: string, file = CATALOG_FILE): CatalogEdit {
  return edit(text, file, pkgName, (catalog, doc) => {
    const { pkg, p } = requirePackage(catalog, pkgName);
    const holding = pkg.channels.filter((c) => c.entries.some((e) => e.name === revision));
    if (holding.length === 0)
      throw new CatalogError(`${pkgName} ${revision} is in no channel, so there is nothing to skip`);
    for (const channel of holding) {
      const c = pkg.channels.indexOf(channel);
      const target = channel.entries.find((e) => e.name === revision) as ChannelEntry;
      const successors = channel.entries.flatMap((e, i) => (e.replaces === revision ? [i] : []));
      if (successors.length === 0) {
        if (findHead(channel)?.name === revision)
          throw new CatalogError(
            `${pkgName} ${revision} is the head of channel ${channel.name}; publish or promote a newer revision first`,
          );
        throw new CatalogError(`no entry of channel ${channel.name} replaces ${revision}`);
      }
      // Every entry that replaced it (an earlier skip may have left two) steps over it; whoever could jump
      // to the skipped revision now jumps to them.
      for (const s of successors) {
        const successor = channel.entries[s] as ChannelEntry;
        const path = ["packages", p, "channels", c, "entries", s];
        if (target.replaces) doc.setIn([...path, "replaces"], target.replaces);
        else doc.deleteIn([...path, "replaces"]);
        for (const jumped of [revision, ...(target.skips ?? [])]) {
          if (jumped !== successor.name && !successor.skips?.includes(jumped))
            appendTo(doc, [...path, "skips"], jumped);
        }
      }
    }
  });
}

/**
 * Removes a revision from the catalog: its record goes, and it joins the package's `removed` list so the
 * sweep never records its tag again. In each channel that held it, the entry that replaced it now replaces
 * what it replaced and skips it (and what it skipped), so downstreams left on it, or on anything it stood
 * in for, still have an upgrade path; a `skips` naming it stays for the same reason. A channel head is
 * refused (the channel would move backwards and its downstreams would have nowhere to go), and so is any
 * change that would leave a revision that had an upgrade path without one: the refusal names the path.
 */
export function removeRevision(
  text: string,
  pkgName: string,
  revision: string,
  file = CATALOG_FILE,
): CatalogEdit {
  const before = knownCatalog(text, file);
  const out = edit(text, file, pkgName, (catalog, doc) => {
    const { pkg, p } = requireRecorded(catalog, pkgName, revision);
    for (const channel of pkg.channels) {
      if (findHead(channel)?.name !== revision) continue;
      if (channel.entries.length === 1)
        throw new CatalogError(
          `${pkgName} ${revision} is the only entry of channel ${channel.name}: removing it would leave the channel's followers nothing to follow. Promote another revision into ${channel.name} first, or deprecate the channel`,
        );
      const longest = longestPathTo(before, pkgName, channel.name, revision);
      const previous = channel.entries.find((e) => e.name === revision)?.replaces;
      throw new CatalogError(
        `${pkgName} ${revision} is the head of channel ${channel.name}: removing it would break the upgrade path ${longest.join(" -> ")} (the channel would move back to ${previous ?? "nothing"}, and downstreams on ${revision} would have no upgrade). Publish a newer revision into ${channel.name} first (\`/rollback\` publishes an earlier revision's content as a new one), then remove ${revision}`,
      );
    }
    takeOut(doc, pkg, p, revision);
  });
  const broken = brokenPath(before, out.catalog, pkgName);
  if (broken) {
    throw new CatalogError(
      `${pkgName} ${revision} cannot be removed: it would break the upgrade path ${broken.path.join(" -> ")} in channel ${broken.channel}`,
    );
  }
  return out;
}

/**
 * Withdraws a revision that no longer exists (its tag deleted): as `removeRevision`, but nothing is
 * refused, since the catalog cannot go on offering what git no longer holds. A channel it heads moves back
 * to the newest surviving revision along its upgrade graph: of the entries the head upgraded from (what it
 * replaced or skipped) that nothing else points at, the newest becomes the head and skips the others, and
 * it also skips the older revisions the head skipped that the channel does not hold (removed ones, or
 * another channel's), so every downstream that had an upgrade path keeps one. A channel it was the only
 * entry of goes (the package's `defaultChannel` moving to its first channel left, or going with the last).
 * Its number stays taken: it joins `removed`, which no publish and no sweep records again.
 */
export function withdrawRevision(
  text: string,
  pkgName: string,
  revision: string,
  file = CATALOG_FILE,
): CatalogEdit {
  return edit(text, file, pkgName, (catalog, doc) => {
    const { pkg, p } = requireRecorded(catalog, pkgName, revision);
    const emptied: string[] = [];
    pkg.channels.forEach((channel, c) => {
      const head = findHead(channel);
      if (head?.name !== revision) return;
      if (channel.entries.length === 1) {
        emptied.push(channel.name);
        return;
      }
      moveHeadBack(doc, pkg, channel, ["packages", p, "channels", c, "entries"], head);
    });
    takeOut(doc, pkg, p, revision);
    if (pkg.defaultChannel !== undefined && emptied.includes(pkg.defaultChannel)) {
      const left = pkg.channels.find((c) => !emptied.includes(c.name));
      if (left) doc.setIn(["packages", p, "defaultChannel"], left.name);
      else doc.deleteIn(["packages", p, "defaultChannel"]);
    }
    if (pkg.channels.every((c) => emptied.includes(c.name))) doc.deleteIn(["packages", p, "channels"]);
  });
}

/**
 * The head `head` of `channel` is going: the newest of the entries only it pointed at becomes the head,
 * and takes over the head's edges to the others (as skips), and to the older revisions outside the
 * channel it skipped. Edits the entry at `entries` (the channel's path in the document); the head's own
 * entry is taken out by the caller.
 */
function moveHeadBack(
  doc: Document,
  pkg: CatalogPackage,
  channel: CatalogPackage["channels"][number],
  entries: (string | number)[],
  head: ChannelEntry,
): void {
  const names = new Set(channel.entries.map((e) => e.name));
  const pointedAt = new Set(
    channel.entries
      .filter((e) => e !== head)
      .flatMap((e) => [...(e.replaces ? [e.replaces] : []), ...(e.skips ?? [])]),
  );
  const orphans = channel.entries.filter((e) => e !== head && !pointedAt.has(e.name));
  const next = orphans.reduce((a, b) => (revisionNumber(b.name) > revisionNumber(a.name) ? b : a));
  const reached = new Set([next.name, ...upgradesFrom(pkg, next)]);
  // A skip names a published or removed revision; one pruned from the catalog has no downstream to carry.
  const known = new Set([...pkg.revisions.map((r) => r.revision), ...(pkg.removed ?? [])]);
  const outside = upgradesFrom(pkg, head).filter(
    (r) =>
      !names.has(r) &&
      known.has(r) &&
      revisionNumber(r) < revisionNumber(next.name) &&
      !skipRangeOnly(head, r),
  );
  const skips = [...(next.skips ?? [])];
  for (const jumped of [...orphans.filter((e) => e !== next).map((e) => e.name), ...outside])
    if (!reached.has(jumped) && !skips.includes(jumped)) skips.push(jumped);
  if (skips.length > (next.skips?.length ?? 0))
    doc.setIn([...entries, channel.entries.indexOf(next), "skips"], doc.createNode(skips));
}

/** Whether `head` upgrades from `r` only by its skipRange (no edge to carry: the range goes with it). */
function skipRangeOnly(head: ChannelEntry, r: string): boolean {
  return head.replaces !== r && !head.skips?.includes(r);
}

/**
 * Takes `revision` out of package `p`: in each channel, the entries that replaced it replace what it
 * replaced and skip it (and what it skipped); its entries, record and deprecation go, and it joins
 * `removed`. A channel left with no entry goes too (the caller sees to its `defaultChannel`).
 */
function takeOut(doc: Document, pkg: CatalogPackage, p: number, revision: string): void {
  const r = pkg.revisions.findIndex((x) => x.revision === revision);
  for (let c = pkg.channels.length - 1; c >= 0; c--) {
    const channel = pkg.channels[c] as (typeof pkg.channels)[number];
    const base = ["packages", p, "channels", c];
    const removed = channel.entries.find((e) => e.name === revision);
    if (!removed) continue;
    channel.entries.forEach((e, i) => {
      if (e.replaces !== revision) return;
      const path = [...base, "entries", i];
      if (removed.replaces) doc.setIn([...path, "replaces"], removed.replaces);
      else doc.deleteIn([...path, "replaces"]);
      const skips = [...(e.skips ?? [])];
      for (const jumped of [revision, ...(removed.skips ?? [])])
        if (jumped !== e.name && !skips.includes(jumped)) skips.push(jumped);
      doc.setIn([...path, "skips"], doc.createNode(skips));
    });
    const i = channel.entries.indexOf(removed);
    if (channel.entries.length === 1) doc.deleteIn(base);
    else doc.deleteIn([...base, "entries", i]);
  }
  const deprecations = pkg.deprecations ?? [];
  for (let d = deprecations.length - 1; d >= 0; d--) {
    const ref = (deprecations[d] as Deprecation).reference;
    if (ref.schema === "olm.bundle" && ref.name === revision)
      doc.deleteIn(["packages", p, "deprecations", d]);
  }
  if (deprecations.length > 0 && deprecations.every((d) => sameReference(d.reference, bundle(revision))))
    doc.deleteIn(["packages", p, "deprecations"]);
  doc.deleteIn(["packages", p, "revisions", r]);
  appendTo(doc, ["packages", p, "removed"], revision);
}

/** The package, where `revision` is one of its published revisions; else why not. */
function requireRecorded(
  catalog: Catalog,
  pkgName: string,
  revision: string,
): { pkg: CatalogPackage; p: number } {
  const found = requirePackage(catalog, pkgName);
  if (!found.pkg.revisions.some((x) => x.revision === revision)) {
    if (found.pkg.removed?.includes(revision))
      throw new CatalogError(`${pkgName} ${revision} was removed from the catalog already`);
    throw new CatalogError(`${pkgName} has no published revision ${revision}`);
  }
  return found;
}

/**
 * Deprecates a revision, a channel or the whole package, as operator-registry's `olm.deprecations`: it
 * stays installable and on its upgrade paths, and whoever uses it is shown `message`. Deprecating again
 * with another message replaces the message.
 */
export function deprecate(
  text: string,
  pkgName: string,
  reference: DeprecationReference,
  message: string,
  file = CATALOG_FILE,
): CatalogEdit {
  return edit(text, file, pkgName, (catalog, doc) => {
    const { pkg, p } = requirePackage(catalog, pkgName);
    if (reference.schema === "olm.bundle" && !pkg.revisions.some((r) => r.revision === reference.name)) {
      throw new CatalogError(
        pkg.removed?.includes(reference.name)
          ? `${pkgName} ${reference.name} was removed from the catalog; there is nothing to deprecate`
          : `${pkgName} has no published revision ${reference.name}`,
      );
    }
    if (reference.schema === "olm.channel" && !pkg.channels.some((c) => c.name === reference.name)) {
      const known = pkg.channels.map((c) => c.name).join(", ") || "none";
      throw new CatalogError(`${pkgName} has no channel ${reference.name} (channels: ${known})`);
    }
    if (message.trim() === "") throw new CatalogError("a deprecation needs a message saying why");
    const d = (pkg.deprecations ?? []).findIndex((x) => sameReference(x.reference, reference));
    if (d >= 0) {
      if (pkg.deprecations?.[d]?.message !== message)
        doc.setIn(["packages", p, "deprecations", d, "message"], message);
      return;
    }
    appendTo(doc, ["packages", p, "deprecations"], { reference, message });
  });
}

/** Takes back the deprecation of what `reference` names (none: the text is returned as it is). */
export function undeprecate(
  text: string,
  pkgName: string,
  reference: DeprecationReference,
  file = CATALOG_FILE,
): CatalogEdit {
  // a deleted package's mark taken back at its next publish: its lines cut out where the text is known
  const cut = reference.schema === "olm.package" ? withoutPackageDeprecation(text, pkgName) : undefined;
  if (cut) return cut;
  return edit(text, file, pkgName, (catalog, doc) => {
    const { pkg, p } = requirePackage(catalog, pkgName);
    const d = (pkg.deprecations ?? []).findIndex((x) => sameReference(x.reference, reference));
    if (d < 0) return;
    if ((pkg.deprecations?.length ?? 0) === 1) doc.deleteIn(["packages", p, "deprecations"]);
    else doc.deleteIn(["packages", p, "deprecations", d]);
  });
}

export function sameReference(a: DeprecationReference, b: DeprecationReference): boolean {
  return a.schema === b.schema && ("name" in a ? a.name : "") === ("name" in b ? b.name : "");
}

const bundle = (name: string): DeprecationReference => ({ schema: "olm.bundle", name });

/** The upgrade path to `revision` (the channel's head) from the entry farthest from it, for a refusal to name. */
function longestPathTo(catalog: Catalog, pkgName: string, channel: string, revision: string): string[] {
  const entries = findPackage(catalog, pkgName)?.channels.find((c) => c.name === channel)?.entries ?? [];
  // Walking back from the head breadth first, the last entry reached is one of the farthest.
  const byName = new Map(entries.map((e) => [e.name, e]));
  const skipped = new Set(entries.flatMap((e) => e.skips ?? []));
  const seen = new Set([revision]);
  let last = revision;
  for (let queue = [revision]; queue.length > 0; ) {
    const next: string[] = [];
    for (const name of queue) {
      const e = byName.get(name);
      for (const from of [...(e?.replaces ? [e.replaces] : []), ...(e?.skips ?? [])]) {
        if (seen.has(from) || !byName.has(from)) continue;
        seen.add(from);
        next.push(from);
        // A skipped entry is a way in, not the path people walk: name the path through the others.
        if (!skipped.has(from)) last = from;
      }
    }
    queue = next;
  }
  const path = upgradePath(catalog, pkgName, last, channel);
  return path.ok ? path.path : [revision];
}

/**
 * A revision that had an upgrade path in a channel before an edit and has none after it: every entry, and
 * every revision a `skips` names, of every channel that still exists.
 */
function brokenPath(
  before: Catalog,
  after: Catalog,
  pkgName: string,
): { channel: string; path: string[] } | undefined {
  const afterPkg = findPackage(after, pkgName);
  const beforePkg = findPackage(before, pkgName);
  for (const channel of beforePkg?.channels ?? []) {
    const had = reachingHead(beforePkg as CatalogPackage, channel);
    const still = afterPkg?.channels.find((c) => c.name === channel.name);
    const has = afterPkg && still ? reachingHead(afterPkg, still) : new Set<string>();
    for (const from of had) {
      if (has.has(from)) continue;
      const path = upgradePath(before, pkgName, from, channel.name);
      return { channel: channel.name, path: path.ok ? path.path : [from] };
    }
  }
  return undefined;
}

function addToChannel(
  doc: Document,
  pkg: CatalogPackage,
  p: number,
  revision: string,
  channelName: string,
): void {
  const c = pkg.channels.findIndex((x) => x.name === channelName);
  if (c < 0) {
    appendTo(doc, ["packages", p, "channels"], { name: channelName, entries: [{ name: revision }] });
    pkg.channels.push({ name: channelName, entries: [{ name: revision }] });
    // The package's first channel is its default, as operator-registry's model takes the first it is given.
    if (pkg.defaultChannel === undefined) {
      setAfterName(doc, p, "defaultChannel", channelName);
      pkg.defaultChannel = channelName;
    }
    return;
  }
  const channel = pkg.channels[c] as CatalogPackage["channels"][number];
  if (channel.entries.some((e) => e.name === revision))
    throw new CatalogError(`${pkg.name} ${revision} is in channel ${channelName} already`);
  const head = findHead(channel);
  if (head && revisionNumber(head.name) > revisionNumber(revision)) {
    throw new CatalogError(
      `${pkg.name} ${revision} is older than ${head.name}, the head of channel ${channelName}; a channel only moves forward`,
    );
  }
  appendTo(
    doc,
    ["packages", p, "channels", c, "entries"],
    head ? { name: revision, replaces: head.name } : { name: revision },
  );
}

function requirePackage(catalog: Catalog, name: string): { pkg: CatalogPackage; p: number } {
  const p = catalog.packages.findIndex((x) => x.name === name);
  if (p < 0) {
    const known = catalog.packages.map((x) => x.name).join(", ") || "none";
    throw new CatalogError(`the catalog has no package ${name} (packages: ${known})`);
  }
  return { pkg: catalog.packages[p] as CatalogPackage, p };
}

/** Sets a field of package `p` right after its name, where a reader looks for it. */
function setAfterName(doc: Document, p: number, key: string, value: string): void {
  const pkg = doc.getIn(["packages", p], true);
  if (!isMap(pkg)) return;
  const at = pkg.items.findIndex((pair) => isScalar(pair.key) && pair.key.value === "name");
  pkg.items.splice(at + 1, 0, doc.createPair(key, value));
}

/** Appends to the sequence at `path` (creating it), in block style so the file stays readable. */
function appendTo(doc: Document, path: (string | number)[], value: unknown): void {
  const existing = doc.getIn(path, true);
  if (isSeq(existing)) {
    if (existing.items.length === 0) existing.flow = false;
    existing.add(doc.createNode(value));
    return;
  }
  const seq = doc.createNode([value]) as YAMLSeq;
  doc.setIn(path, seq);
}

/**
 * `change` made to the catalog in `text`: on package `pkgName`'s lines alone where the text is known and
 * laid out (editPackage), else through the whole file's Document, printed and checked whole.
 */
function edit(
  text: string,
  file: string,
  pkgName: string,
  change: (catalog: Catalog, doc: Document) => void,
): CatalogEdit {
  const alone = editPackage(text, file, pkgName, change);
  if (alone) return alone;
  const { catalog, document } = parseCatalog(text, file, { fillDefaultChannels: true });
  change(structuredClone(catalog), document);
  const next = document.toString({ lineWidth: 0 });
  try {
    const parsed = parseCatalog(next, file);
    remember(next, parsed.catalog, parsed.document);
    return { text: next, catalog: parsed.catalog };
  } catch (err) {
    if (err instanceof CatalogError)
      throw new CatalogError("the change would break the catalog, so it was not made", err.problems);
    throw err;
  }
}
