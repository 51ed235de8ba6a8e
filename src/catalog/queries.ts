import { sameReference } from "./edit.js";
import { findHead, findPackage, skippedIn } from "./graph.js";
import { type Catalog, type CatalogPackage, type DeprecationReference, revisionNumber } from "./schema.js";

export interface PackageSummary {
  name: string;
  /** The channel a downstream that names none follows, as operator-registry's "get package" answers. */
  defaultChannel?: string;
  revisions: number;
  latest?: string;
  channels: string[];
  /** The package's deprecation message, when the package as a whole is deprecated. */
  deprecated?: string;
  /** Revisions taken out of the catalog. */
  removed: string[];
}

export interface RevisionSummary {
  revision: string;
  commit: string;
  time: string;
  /** Channels holding this revision. */
  channels: string[];
  /** Channels in which it is skipped (never offered as an upgrade). */
  skippedIn: string[];
  /** Its deprecation message, when it is deprecated. */
  deprecated?: string;
}

export interface ChannelSummary {
  name: string;
  head?: string;
  /** Its deprecation message, when it is deprecated. */
  deprecated?: string;
  /** Entries from the head down the replaces chain, as operator-registry lists them. */
  entries: { name: string; replaces?: string; skips: string[]; skipRange?: string }[];
}

export function listPackages(catalog: Catalog): PackageSummary[] {
  return catalog.packages.map((p) => ({
    name: p.name,
    ...(p.defaultChannel ? { defaultChannel: p.defaultChannel } : {}),
    revisions: p.revisions.length,
    ...(p.revisions.length ? { latest: p.revisions[p.revisions.length - 1]?.revision } : {}),
    channels: p.channels.map((c) => c.name),
    ...deprecation(p, { schema: "olm.package" }),
    removed: p.removed ?? [],
  }));
}

/**
 * The highest revision number the catalog remembers for `pkg`: recorded, or removed (a revision taken out,
 * or deleted: its tag gone). A publish numbers on after it, so no number names two commits. 0 for none.
 */
export function highestRevision(catalog: Catalog | undefined, pkgName: string): number {
  const pkg = catalog && findPackage(catalog, pkgName);
  const numbers = [...(pkg?.revisions.map((r) => r.revision) ?? []), ...(pkg?.removed ?? [])].map(
    revisionNumber,
  );
  return Math.max(0, ...numbers);
}

export function listRevisions(catalog: Catalog, pkgName: string): RevisionSummary[] | undefined {
  const pkg = findPackage(catalog, pkgName);
  return pkg?.revisions.map((r) => ({
    ...r,
    channels: pkg.channels.filter((c) => c.entries.some((e) => e.name === r.revision)).map((c) => c.name),
    skippedIn: pkg.channels.filter((c) => skippedIn(c).has(r.revision)).map((c) => c.name),
    ...deprecation(pkg, { schema: "olm.bundle", name: r.revision }),
  }));
}

export function listChannels(catalog: Catalog, pkgName: string): ChannelSummary[] | undefined {
  const pkg = findPackage(catalog, pkgName);
  return pkg?.channels.map((c) => {
    const head = findHead(c);
    const byName = new Map(c.entries.map((e) => [e.name, e]));
    const ordered: ChannelSummary["entries"] = [];
    const seen = new Set<string>();
    const summary = (e: (typeof c.entries)[number]) => ({
      name: e.name,
      ...(e.replaces ? { replaces: e.replaces } : {}),
      skips: e.skips ?? [],
      ...(e.skipRange ? { skipRange: e.skipRange } : {}),
    });
    for (let e = head; e && !seen.has(e.name); e = e.replaces ? byName.get(e.replaces) : undefined) {
      seen.add(e.name);
      ordered.push(summary(e));
    }
    for (const e of c.entries) if (!seen.has(e.name)) ordered.push(summary(e));
    return {
      name: c.name,
      ...(head ? { head: head.name } : {}),
      ...deprecation(pkg, { schema: "olm.channel", name: c.name }),
      entries: ordered,
    };
  });
}

/** `{ deprecated: message }` when the package deprecates what `ref` names, else nothing. */
export function deprecation(pkg: CatalogPackage, ref: DeprecationReference): { deprecated?: string } {
  const found = pkg.deprecations?.find((d) => sameReference(d.reference, ref));
  return found ? { deprecated: found.message } : {};
}
