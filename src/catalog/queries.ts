import { findHead, findPackage, skippedIn } from "./graph.js";
import type { Catalog } from "./schema.js";

export interface PackageSummary {
  name: string;
  revisions: number;
  latest?: string;
  channels: string[];
}

export interface RevisionSummary {
  revision: string;
  commit: string;
  time: string;
  /** Channels holding this revision. */
  channels: string[];
  /** Channels in which it is skipped (never offered as an upgrade). */
  skippedIn: string[];
}

export interface ChannelSummary {
  name: string;
  head?: string;
  /** Entries from the head down the replaces chain, as operator-registry lists them. */
  entries: { name: string; replaces?: string; skips: string[] }[];
}

export function listPackages(catalog: Catalog): PackageSummary[] {
  return catalog.packages.map((p) => ({
    name: p.name,
    revisions: p.revisions.length,
    ...(p.revisions.length ? { latest: p.revisions[p.revisions.length - 1]?.revision } : {}),
    channels: p.channels.map((c) => c.name),
  }));
}

export function listRevisions(catalog: Catalog, pkgName: string): RevisionSummary[] | undefined {
  const pkg = findPackage(catalog, pkgName);
  return pkg?.revisions.map((r) => ({
    ...r,
    channels: pkg.channels.filter((c) => c.entries.some((e) => e.name === r.revision)).map((c) => c.name),
    skippedIn: pkg.channels.filter((c) => skippedIn(c).has(r.revision)).map((c) => c.name),
  }));
}

export function listChannels(catalog: Catalog, pkgName: string): ChannelSummary[] | undefined {
  const pkg = findPackage(catalog, pkgName);
  return pkg?.channels.map((c) => {
    const head = findHead(c);
    const byName = new Map(c.entries.map((e) => [e.name, e]));
    const ordered: ChannelSummary["entries"] = [];
    const seen = new Set<string>();
    for (let e = head; e && !seen.has(e.name); e = e.replaces ? byName.get(e.replaces) : undefined) {
      seen.add(e.name);
      ordered.push({ name: e.name, ...(e.replaces ? { replaces: e.replaces } : {}), skips: e.skips ?? [] });
    }
    for (const e of c.entries) {
      if (!seen.has(e.name))
        ordered.push({ name: e.name, ...(e.replaces ? { replaces: e.replaces } : {}), skips: e.skips ?? [] });
    }
    return { name: c.name, ...(head ? { head: head.name } : {}), entries: ordered };
  });
}
