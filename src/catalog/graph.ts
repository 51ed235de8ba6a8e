import type { GraphViolation } from "./errors.js";
import type {
  Catalog,
  CatalogChannel,
  CatalogPackage,
  ChannelEntry,
  DeprecationReference,
} from "./schema.js";

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
 * Every revision with an upgrade path to the channel's head, as `upgradePath` walks (from X to an entry
 * that replaces or skips X, never to a skipped entry): the head, and walking back from it, what each
 * reached entry replaces or skips — a skipped one (or one not in the channel, a removed revision) as a
 * start only, since nothing steps onto it. Linear in the channel's edges; empty without a single head.
 */
export function reachingHead(channel: CatalogChannel): Set<string> {
  const head = findHead(channel);
  if (!head) return new Set();
  const skipped = skippedIn(channel);
  const byName = new Map(channel.entries.map((e) => [e.name, e]));
  const reached = new Set([head.name]);
  const queue: ChannelEntry[] = [head];
  for (let entry = queue.pop(); entry; entry = queue.pop()) {
    for (const from of [...(entry.replaces ? [entry.replaces] : []), ...(entry.skips ?? [])]) {
      if (reached.has(from)) continue;
      reached.add(from);
      const next = byName.get(from);
      if (next && !skipped.has(from)) queue.push(next);
    }
  }
  return reached;
}

/** Revisions some entry of the channel skips: never offered as an upgrade in that channel. */
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
    out.push(...checkDeprecations(pkg).map((v) => ({ path: at(...v.path), message: v.message })));
  });
  return out;
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
  const names = new Set<string>();
  channel.entries.forEach((e, i) => {
    if (names.has(e.name))
      out.push({
        path: ["entries", i, "name"],
        message: `${e.name} appears twice in channel ${channel.name}`,
      });
    names.add(e.name);
    if (!known.has(e.name))
      out.push({
        path: ["entries", i, "name"],
        message: `${e.name} is not a published revision of ${pkg.name}`,
      });
    if (e.replaces && !known.has(e.replaces))
      out.push({
        path: ["entries", i, "replaces"],
        message: `${e.replaces} is not a published revision of ${pkg.name}`,
      });
    if (e.replaces === e.name)
      out.push({ path: ["entries", i, "replaces"], message: `${e.name} replaces itself` });
    (e.skips ?? []).forEach((s, j) => {
      if (!skippable.has(s))
        out.push({
          path: ["entries", i, "skips", j],
          message: `${s} is not a published revision of ${pkg.name}`,
        });
    });
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
  if (heads.length > 1)
    return [
      {
        path: ["entries"],
        message: `channel ${channel.name} has several heads (${heads.map((h) => h.name).join(", ")}); each needs to be replaced by a newer entry but one`,
      },
    ];
  const byName = new Map(channel.entries.map((e) => [e.name, e]));
  const reached = new Set<string>();
  const chain = new Set<string>();
  let current: ChannelEntry | undefined = heads[0];
  while (current) {
    if (chain.has(current.name)) {
      return [
        {
          path: ["entries"],
          message: `channel ${channel.name}: the replaces chain has a cycle through ${current.name}`,
        },
      ];
    }
    chain.add(current.name);
    reached.add(current.name);
    for (const s of current.skips ?? []) reached.add(s);
    current = current.replaces ? byName.get(current.replaces) : undefined;
  }
  channel.entries.forEach((e, i) => {
    if (!reached.has(e.name))
      out.push({
        path: ["entries", i, "name"],
        message: `${e.name} is stranded in channel ${channel.name}: the head ${heads[0]?.name} does not reach it through replaces or skips`,
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
 * operator-registry resolves: from X to any entry that replaces X or skips X, never to a skipped entry.
 * `[from]` when `from` is the head already.
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
  const skipped = skippedIn(channel);
  const previous = new Map<string, string>();
  const queue = [from];
  const seen = new Set([from]);
  while (queue.length > 0) {
    const x = queue.shift() as string;
    const next = channel.entries
      .filter((e) => !skipped.has(e.name) && (e.replaces === x || e.skips?.includes(x)))
      .map((e) => e.name)
      .sort((a, b) => (a === head.name ? -1 : b === head.name ? 1 : 0));
    for (const y of next) {
      if (seen.has(y)) continue;
      seen.add(y);
      previous.set(y, x);
      if (y === head.name) {
        const path = [y];
        let step = x;
        while (step !== from) {
          path.unshift(step);
          step = previous.get(step) as string;
        }
        return { ok: true, path: [from, ...path] };
      }
      queue.push(y);
    }
  }
  return {
    ok: false,
    reason: `no upgrade path from ${from} to ${head.name} in channel ${channelName} of ${pkgName}`,
  };
}
