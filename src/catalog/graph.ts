import { parse } from "semver";
import type { GraphViolation } from "./errors.js";
import {
  type Catalog,
  type CatalogChannel,
  type CatalogPackage,
  type ChannelEntry,
  type DeprecationReference,
  revisionNumber,
  revisionVersion,
} from "./schema.js";
import { parseSkipRange } from "./skip-range.js";

/**
 * The channel's head: the one entry no other entry replaces or skips (operator-registry's rule). Undefined
 * when the channel has none or several; `checkCatalog` reports those.
 */
export function findHead(channel: CatalogChannel): ChannelEntry | undefined {
  const heads = headCandidates(channel);
  return heads.length === 1 ? heads[0] : undefined;
}

function headCandidates(channel: CatalogChannel): ChannelEntry[] {
  const pointedAt = new Set<string>();
  for (const e of channel.entries) {
    if (e.replaces) pointedAt.add(e.replaces);
    for (const s of e.skips ?? []) pointedAt.add(s);
  }
  return channel.entries.filter((e) => !pointedAt.has(e.name));
}

/**
 * Every revision with an upgrade path to the channel's head, as `upgradePath` walks: the head, and walking
 * back from it, every revision an entry reached upgrades from (what it replaces, skips, or its skipRange
 * covers) — an entry of the channel, or a revision it does not hold (a removed or pruned one, or one of
 * another channel), from which downstreams still upgrade. Empty without a single head.
 */
export function reachingHead(pkg: CatalogPackage, channel: CatalogChannel): Set<string> {
  const head = findHead(channel);
  if (!head) return new Set();
  const byName = new Map(channel.entries.map((e) => [e.name, e]));
  const reached = new Set([head.name]);
  const queue: ChannelEntry[] = [head];
  for (let entry = queue.pop(); entry; entry = queue.pop()) {
    for (const from of upgradesFrom(pkg, entry)) {
      if (reached.has(from)) continue;
      reached.add(from);
      const next = byName.get(from);
      if (next) queue.push(next);
    }
  }
  return reached;
}

/**
 * The revisions whose downstreams may upgrade straight to `entry`: what it replaces and skips, and every
 * revision of the package (published or removed) its skipRange covers, `vN` read as N.0.0.
 */
export function upgradesFrom(pkg: CatalogPackage, entry: ChannelEntry): string[] {
  const out = [...(entry.replaces ? [entry.replaces] : []), ...(entry.skips ?? [])];
  const range = entry.skipRange === undefined ? undefined : parseSkipRange(entry.skipRange);
  if (range?.ok) {
    for (const r of [...pkg.revisions.map((x) => x.revision), ...(pkg.removed ?? [])]) {
      const version = parse(revisionVersion(r));
      if (r !== entry.name && version && range.range(version) && !out.includes(r)) out.push(r);
    }
  }
  return out;
}

/** Revisions some entry of the channel skips: offered as an upgrade in that channel only when nothing else leads on. */
export function skippedIn(channel: CatalogChannel): Set<string> {
  return new Set(channel.entries.flatMap((e) => e.skips ?? []));
}

/**
 * Checks the rules that keep upgrades well defined, as operator-registry validates `olm.channel`: names are
 * unique, entries and edges name revisions of the package, a channel has exactly one head, its replaces
 * chain has no cycle, and every entry is on that chain or skipped by an entry on it.
 */
export function checkCatalog(catalog: Catalog): GraphViolation[] {
  const out: GraphViolation[] = [];
  const seenPackages = new Set<string>();
  catalog.packages.forEach((pkg, p) => {
    const at = (...rest: (string | number)[]) => ["packages", p, ...rest];
    if (seenPackages.has(pkg.name))
      out.push({ path: at("name"), message: `package ${pkg.name} is listed twice` });
    seenPackages.add(pkg.name);
    const revisions = new Set<string>();
    pkg.revisions.forEach((r, i) => {
      if (revisions.has(r.revision))
        out.push({ path: at("revisions", i, "revision"), message: `revision ${r.revision} is listed twice` });
      revisions.add(r.revision);
    });
    (pkg.removed ?? []).forEach((r, i) => {
      if (revisions.has(r))
        out.push({
          path: at("removed", i),
          message: `${r} is listed both as a revision and as removed; keep one`,
        });
    });
    const channelNames = new Set<string>();
    pkg.channels.forEach((channel, c) => {
      if (channelNames.has(channel.name))
        out.push({ path: at("channels", c, "name"), message: `channel ${channel.name} is listed twice` });
      channelNames.add(channel.name);
      out.push(
        ...checkChannel(pkg, channel).map((v) => ({
          path: at("channels", c, ...v.path),
          message: v.message,
        })),
      );
    });
    out.push(...checkDefaultChannel(pkg).map((v) => ({ path: at(...v.path), message: v.message })));
    out.push(...checkDeprecations(pkg).map((v) => ({ path: at(...v.path), message: v.message })));
  });
  return out;
}

/**
 * As operator-registry checks `olm.package`'s `defaultChannel`: set, and one of the package's channels. A
 * package with no channel yet (its revisions published, none promoted: porchlight's difference) needs none.
 */
function checkDefaultChannel(pkg: CatalogPackage): GraphViolation[] {
  const channels = pkg.channels.map((c) => c.name);
  if (pkg.defaultChannel === undefined)
    return channels.length === 0
      ? []
      : [
          {
            path: ["defaultChannel"],
            message: `package ${pkg.name} has channels (${channels.join(", ")}) but no defaultChannel: name the one a downstream that names no channel follows`,
          },
        ];
  if (channels.includes(pkg.defaultChannel)) return [];
  return [
    {
      path: ["defaultChannel"],
      message: `${pkg.defaultChannel} is not a channel of ${pkg.name} (channels: ${channels.join(", ") || "none"})`,
    },
  ];
}

/** As operator-registry checks `olm.deprecations`: each names something of the package, once. */
function checkDeprecations(pkg: CatalogPackage): GraphViolation[] {
  const out: GraphViolation[] = [];
  const seen = new Set<string>();
  (pkg.deprecations ?? []).forEach((d, i) => {
    const ref = d.reference;
    const key = `${ref.schema}/${"name" in ref ? ref.name : ""}`;
    if (seen.has(key))
      out.push({
        path: ["deprecations", i, "reference"],
        message: `${describeReference(ref)} is deprecated twice`,
      });
    seen.add(key);
    if (ref.schema === "olm.bundle" && !pkg.revisions.some((r) => r.revision === ref.name))
      out.push({
        path: ["deprecations", i, "reference", "name"],
        message: `${ref.name} is not a published revision of ${pkg.name}`,
      });
    if (ref.schema === "olm.channel" && !pkg.channels.some((c) => c.name === ref.name))
      out.push({
        path: ["deprecations", i, "reference", "name"],
        message: `${pkg.name} has no channel ${ref.name}`,
      });
  });
  return out;
}

/** `revision v2`, `channel beta`, `the package`: what a deprecation reference names, for messages. */
export function describeReference(ref: DeprecationReference): string {
  if (ref.schema === "olm.bundle") return `revision ${ref.name}`;
  if (ref.schema === "olm.channel") return `channel ${ref.name}`;
  return "the package";
}

function checkChannel(pkg: CatalogPackage, channel: CatalogChannel): GraphViolation[] {
  const out: GraphViolation[] = [];
  const known = new Set(pkg.revisions.map((r) => r.revision));
  // A skip may name a removed revision: downstreams left on it still jump to the entry that skips it.
  const skippable = new Set([...known, ...(pkg.removed ?? [])]);
  if (channel.entries.length === 0)
    return [{ path: ["entries"], message: `channel ${channel.name} has no entries` }];
  const names = new Set(channel.entries.map((e) => e.name));
  const seen = new Set<string>();
  channel.entries.forEach((e, i) => {
    if (seen.has(e.name))
      out.push({
        path: ["entries", i, "name"],
        message: `${e.name} appears twice in channel ${channel.name}`,
      });
    seen.add(e.name);
    if (!known.has(e.name))
      out.push({
        path: ["entries", i, "name"],
        message: `${e.name} is not a published revision of ${pkg.name}`,
      });
    // As operator-registry allows: the entry the replaces chain ends at may replace a revision the channel
    // does not hold (removed, pruned, or never in it) — an older one, so a typo is still caught.
    if (e.replaces && !names.has(e.replaces) && revisionNumber(e.replaces) >= revisionNumber(e.name))
      out.push({
        path: ["entries", i, "replaces"],
        message: `${e.replaces} is not an entry of channel ${channel.name}, nor a revision older than ${e.name} (which an oldest entry may replace)`,
      });
    if (e.replaces === e.name)
      out.push({
        path: ["entries", i, "replaces"],
        message: `${e.name} replaces itself: the replaces chain has a cycle ${e.name} -> ${e.name}`,
      });
    (e.skips ?? []).forEach((s, j) => {
      if (!skippable.has(s))
        out.push({
          path: ["entries", i, "skips", j],
          message: `${s} is not a published revision of ${pkg.name}`,
        });
    });
    if (e.skipRange !== undefined) {
      const range = parseSkipRange(e.skipRange);
      if (!range.ok)
        out.push({
          path: ["entries", i, "skipRange"],
          message: `invalid skipRange ${JSON.stringify(e.skipRange)}: ${range.reason}`,
        });
    }
  });
  if (out.length > 0) return out;

  const heads = headCandidates(channel);
  if (heads.length === 0)
    return [
      {
        path: ["entries"],
        message: `channel ${channel.name} has no head: its replaces/skips edges form a cycle`,
      },
    ];
  const head = heads[0] as ChannelEntry;
  if (heads.length > 1)
    return [
      {
        path: ["entries"],
        message: `channel ${channel.name} has several heads (${heads.map((h) => h.name).join(", ")}); each needs to be replaced by a newer entry but one`,
      },
    ];
  // operator-registry's rule: the replaces chain from the head, which stops at a skipped entry (or one the
  // channel does not hold), has no cycle; every entry is on it or skipped by some entry.
  const byName = new Map(channel.entries.map((e) => [e.name, e]));
  const skipped = skippedIn(channel);
  const chain: string[] = [head.name];
  for (let cur: ChannelEntry | undefined = head; cur?.replaces && !skipped.has(cur.replaces); ) {
    const at = chain.indexOf(cur.replaces);
    if (at >= 0)
      return [
        {
          path: ["entries"],
          message: `channel ${channel.name}: the replaces chain has a cycle ${[...chain.slice(at), cur.replaces].join(" -> ")}`,
        },
      ];
    cur = byName.get(cur.replaces);
    if (cur) chain.push(cur.name);
  }
  channel.entries.forEach((e, i) => {
    if (!chain.includes(e.name) && !skipped.has(e.name))
      out.push({
        path: ["entries", i, "name"],
        message: `${e.name} is stranded in channel ${channel.name}: the replaces chain from the head (${chain.join(" -> ")}) does not reach it and no entry skips it`,
      });
  });
  if (out.length > 0) return out;
  // And, so that `catalog path` finds a way from every entry: each one reaches the head (skips that only
  // lead to each other, which operator-registry accepts, do not).
  const reaching = reachingHead(pkg, channel);
  channel.entries.forEach((e, i) => {
    if (!reaching.has(e.name))
      out.push({
        path: ["entries", i, "name"],
        message: `${e.name} has no upgrade path to ${head.name}, the head of channel ${channel.name}: the entries that skip it do not reach the head either`,
      });
  });
  return out;
}

export function findPackage(catalog: Catalog, name: string): CatalogPackage | undefined {
  return catalog.packages.find((p) => p.name === name);
}

function findChannel(pkg: CatalogPackage, name: string): CatalogChannel | undefined {
  return pkg.channels.find((c) => c.name === name);
}

/** The head revision of a channel, or undefined when the package or channel does not exist. */
export function channelHead(catalog: Catalog, pkgName: string, channelName: string): string | undefined {
  const pkg = findPackage(catalog, pkgName);
  const channel = pkg && findChannel(pkg, channelName);
  return channel && findHead(channel)?.name;
}

export type UpgradePath = { ok: true; path: string[] } | { ok: false; reason: string };

/**
 * The shortest upgrade from `from` to the head of `channelName`, one step at a time along the edges
 * operator-registry resolves: from X to any entry that replaces X, skips X or whose skipRange covers X —
 * never onto a skipped entry while another way leads to the head, and through skipped entries (as OLM's
 * resolver takes them) only when nothing else does. `[from]` when `from` is the head already.
 */
export function upgradePath(
  catalog: Catalog,
  pkgName: string,
  from: string,
  channelName: string,
): UpgradePath {
  const pkg = findPackage(catalog, pkgName);
  if (!pkg) return { ok: false, reason: `the catalog has no package ${pkgName}` };
  const channel = findChannel(pkg, channelName);
  if (!channel) {
    const known = pkg.channels.map((c) => c.name).join(", ") || "none";
    return { ok: false, reason: `package ${pkgName} has no channel ${channelName} (channels: ${known})` };
  }
  const head = findHead(channel);
  if (!head) return { ok: false, reason: `channel ${channelName} of ${pkgName} has no single head` };
  if (from === head.name) return { ok: true, path: [from] };
  const edges = channel.entries.map((e) => ({ name: e.name, from: new Set(upgradesFrom(pkg, e)) }));
  const skipped = skippedIn(channel);
  const path =
    shortestPath(
      from,
      head.name,
      edges.filter((e) => !skipped.has(e.name)),
    ) ?? shortestPath(from, head.name, edges);
  return path
    ? { ok: true, path }
    : {
        ok: false,
        reason: `no upgrade path from ${from} to ${head.name} in channel ${channelName} of ${pkgName}`,
      };
}

/** Breadth first from `from` along `edges` (an entry and what it upgrades from), the head tried first. */
function shortestPath(
  from: string,
  head: string,
  edges: readonly { name: string; from: ReadonlySet<string> }[],
): string[] | undefined {
  const previous = new Map<string, string>();
  const queue = [from];
  const seen = new Set([from]);
  for (let x = queue.shift(); x !== undefined; x = queue.shift()) {
    const step = x;
    const next = edges
      .filter((e) => e.from.has(step))
      .map((e) => e.name)
      .sort((a, b) => (a === head ? -1 : b === head ? 1 : 0));
    for (const y of next) {
      if (seen.has(y)) continue;
      seen.add(y);
      previous.set(y, step);
      if (y === head) {
        const path = [y];
        for (let back: string | undefined = step; back !== undefined; back = previous.get(back))
          path.unshift(back);
        return path;
      }
      queue.push(y);
    }
  }
  return undefined;
}
