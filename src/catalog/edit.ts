import { type Document, isSeq, type YAMLSeq } from "yaml";
import { CatalogError } from "./errors.js";
import { findHead } from "./graph.js";
import { parseCatalog } from "./parse.js";
import {
  CATALOG_FILE,
  type Catalog,
  type CatalogPackage,
  type ChannelEntry,
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

/** Records a published revision; in each channel named, it replaces the channel's head. */
export function addRevision(text: string, add: AddRevision, file = CATALOG_FILE): CatalogEdit {
  return edit(text, file, (catalog, doc) => {
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
    const newest = pkg.revisions.map((r) => revisionNumber(r.revision)).reduce((a, b) => Math.max(a, b), 0);
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
  return edit(text, file, (catalog, doc) => {
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
  return edit(text, file, (catalog, doc) => {
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
 * Removes a revision from the catalog: its record, its channel entries (the entry that replaced it now
 * replaces what it replaced, and skips what it skipped) and any `skips` naming it. A channel left empty goes
 * too. A channel head that skips others is refused: its channel would be left with several heads.
 */
export function removeRevision(
  text: string,
  pkgName: string,
  revision: string,
  file = CATALOG_FILE,
): CatalogEdit {
  return edit(text, file, (catalog, doc) => {
    const { pkg, p } = requirePackage(catalog, pkgName);
    const r = pkg.revisions.findIndex((x) => x.revision === revision);
    if (r < 0) throw new CatalogError(`${pkgName} has no published revision ${revision}`);
    for (const channel of pkg.channels) {
      const entry = channel.entries.find((e) => e.name === revision);
      if (entry?.skips?.length && findHead(channel)?.name === revision) {
        throw new CatalogError(
          `${pkgName} ${revision} is the head of channel ${channel.name} and skips ${entry.skips.join(", ")}; promote a newer revision into the channel first, or remove those too`,
        );
      }
    }
    for (let c = pkg.channels.length - 1; c >= 0; c--) {
      const channel = pkg.channels[c] as (typeof pkg.channels)[number];
      const base = ["packages", p, "channels", c];
      const removed = channel.entries.find((e) => e.name === revision);
      for (let i = channel.entries.length - 1; i >= 0; i--) {
        const e = channel.entries[i] as ChannelEntry;
        const path = [...base, "entries", i];
        if (e.name === revision) continue;
        if (e.replaces === revision) {
          if (removed?.replaces) doc.setIn([...path, "replaces"], removed.replaces);
          else doc.deleteIn([...path, "replaces"]);
        }
        // The entry that replaced the removed one also takes over what it skipped.
        const inherited = e.replaces === revision ? (removed?.skips ?? []) : [];
        const skips = [
          ...(e.skips ?? []).filter((x) => x !== revision),
          ...inherited.filter((x) => !e.skips?.includes(x) && x !== e.name),
        ];
        if (JSON.stringify(skips) !== JSON.stringify(e.skips ?? [])) {
          if (skips.length === 0) doc.deleteIn([...path, "skips"]);
          else if (inherited.length === 0) doc.deleteIn([...path, "skips", e.skips?.indexOf(revision) ?? -1]);
          else doc.setIn([...path, "skips"], doc.createNode(skips));
        }
      }
      const i = channel.entries.findIndex((e) => e.name === revision);
      if (i >= 0) {
        if (channel.entries.length === 1) doc.deleteIn(base);
        else doc.deleteIn([...base, "entries", i]);
      }
    }
    doc.deleteIn(["packages", p, "revisions", r]);
    if (pkg.revisions.length === 1) doc.deleteIn(["packages", p]);
  });
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

function edit(text: string, file: string, change: (catalog: Catalog, doc: Document) => void): CatalogEdit {
  const { catalog, document } = parseCatalog(text, file);
  change(structuredClone(catalog), document);
  const next = document.toString({ lineWidth: 0 });
  try {
    return { text: next, catalog: parseCatalog(next, file).catalog };
  } catch (err) {
    if (err instanceof CatalogError)
      throw new CatalogError("the change would break the catalog, so it was not made", err.problems);
    throw err;
  }
}
