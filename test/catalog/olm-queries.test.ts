import { describe, expect, it } from "vitest";
import {
  type Catalog,
  channelHead,
  findPackage,
  listChannels,
  listPackages,
  parseCatalog,
  upgradePath,
  upgradesFrom,
} from "../../src/catalog/index.js";
import { catalogText, type PackageSpec } from "./olm-cases.js";

/**
 * operator-registry's cache and server answers (pkg/cache/cache_test.go, pkg/server/server_test.go) on
 * their catalogs, read off into porchlight's: "get package" is listPackages with listChannels' heads,
 * "bundle for channel" the channel's head, "bundle that replaces X" the first step of X's upgrade path,
 * "channel entries that replace X" the entries X upgrades straight to.
 */
interface QueryRow {
  go: string;
  catalog: string;
  check: (catalog: Catalog) => void;
}

/** The entries of each channel that `from` upgrades straight to (replaces, skips or skipRange), as `channel/entry`. */
function entriesThatReplace(catalog: Catalog, pkgName: string, from: string): string[] {
  const pkg = findPackage(catalog, pkgName);
  if (!pkg) return [];
  return pkg.channels.flatMap((c) =>
    c.entries.filter((e) => upgradesFrom(pkg, e).includes(from)).map((e) => `${c.name}/${e.name}`),
  );
}

/** "Get package": its default channel and each channel's head (and deprecation). */
function getPackage(catalog: Catalog, name: string) {
  const summary = listPackages(catalog).find((p) => p.name === name);
  return {
    defaultChannel: summary?.defaultChannel,
    ...(summary?.deprecated ? { deprecated: summary.deprecated } : {}),
    channels: Object.fromEntries(
      (listChannels(catalog, name) ?? []).map((c) => [
        c.name,
        c.deprecated ? `${c.head} (deprecated)` : c.head,
      ]),
    ),
  };
}

// pkg/cache's validFS. etcd: etcdoperator-community.v0.6.1 v1, etcdoperator.v0.6.1 (named by a skip, no
// bundle: removed) v2, v0.9.0 v3, v0.9.2 v4, v0.9.2-clusterwide v5, v0.9.4 v6, v0.9.4-clusterwide v7; its
// skipRange ">=0.9.0 <=0.9.1" covers v0.9.0 alone, here v3 (3.0.0). cockroachdb: v2.0.9 v1, v2.1.1 v2,
// v2.1.11 v3, v3.0.7 v4, v5.0.3 v5.
const cacheEtcd: PackageSpec = {
  name: "etcd",
  defaultChannel: "singlenamespace-alpha",
  revisions: ["v1", "v3", "v4", "v5", "v6", "v7"],
  removed: ["v2"],
  channels: {
    alpha: [{ name: "v1" }],
    "singlenamespace-alpha": [{ name: "v3" }, { name: "v4", replaces: "v3" }, { name: "v6", replaces: "v4" }],
    "clusterwide-alpha": [
      { name: "v3" },
      { name: "v5", replaces: "v3", skips: ["v2", "v3"], skipRange: ">=3.0.0 <=3.0.0" },
      { name: "v7", replaces: "v5" },
    ],
  },
};
const cacheCockroach: PackageSpec = {
  name: "cockroachdb",
  defaultChannel: "stable-5.x",
  revisions: ["v1", "v2", "v3", "v4", "v5"],
  channels: {
    stable: [{ name: "v1" }, { name: "v2", replaces: "v1" }, { name: "v3", replaces: "v2" }],
    "stable-3.x": [{ name: "v4" }],
    "stable-5.x": [{ name: "v5" }],
  },
};
const cache = catalogText(cacheCockroach, cacheEtcd);

// pkg/server's catalog from manifests/etcd: v0.6.1 v1, v0.9.0 v2, v0.9.1 (skipped, no bundle: removed) v3,
// v0.9.2 v4, whose skipRange "< 0.6.0" reads "< 1.0.0" here (nothing below v1). Its deprecation catalog
// (validFS): cockroachdb v5.0.3 (replaced, not in the catalog: pruned) v1, v5.0.4 v2, v6.0.0 v3.
const etcdChain = [
  { name: "v1" },
  { name: "v2", replaces: "v1" },
  { name: "v4", replaces: "v2", skips: ["v3"], skipRange: "< 1.0.0" },
];
const server = catalogText({
  name: "etcd",
  defaultChannel: "alpha",
  revisions: ["v1", "v2", "v4"],
  removed: ["v3"],
  channels: { alpha: etcdChain, beta: etcdChain.slice(0, 2), stable: etcdChain },
});
const serverDeprecations = catalogText({
  name: "cockroachdb",
  defaultChannel: "stable-v6.x",
  revisions: ["v2", "v3"],
  channels: { "stable-5.x": [{ name: "v2", replaces: "v1" }], "stable-v6.x": [{ name: "v3" }] },
  deprecations: [
    { reference: { schema: "olm.package" }, message: "package cockroachdb is end of life." },
    {
      reference: { schema: "olm.channel", name: "stable-5.x" },
      message: "channel stable-5.x is no longer supported.",
    },
  ],
});

const ROWS: QueryRow[] = [
  {
    go: "TestCache_GetBundleForChannel",
    catalog: cache,
    check: (c) => expect(channelHead(c, "etcd", "singlenamespace-alpha")).toBe("v6"),
  },
  {
    go: "TestCache_GetBundleThatReplaces",
    catalog: cache,
    check: (c) =>
      expect(upgradePath(c, "etcd", "v3", "singlenamespace-alpha")).toMatchObject({
        path: ["v3", "v4", "v6"],
      }),
  },
  {
    go: "TestCache_GetChannelEntriesThatReplace",
    catalog: cache,
    check: (c) =>
      expect(entriesThatReplace(c, "etcd", "v3")).toEqual([
        "singlenamespace-alpha/v4",
        "clusterwide-alpha/v5",
      ]),
  },
  {
    go: "TestCache_GetPackage",
    catalog: cache,
    check: (c) =>
      expect(getPackage(c, "etcd")).toEqual({
        defaultChannel: "singlenamespace-alpha",
        channels: { alpha: "v1", "singlenamespace-alpha": "v6", "clusterwide-alpha": "v7" },
      }),
  },
  {
    go: "TestCache_ListPackages",
    catalog: cache,
    check: (c) => expect(listPackages(c).map((p) => p.name)).toEqual(["cockroachdb", "etcd"]),
  },
  {
    go: "TestListPackages/FBCCacheWithDeprecations",
    catalog: serverDeprecations,
    check: (c) => expect(listPackages(c).map((p) => p.name)).toEqual(["cockroachdb"]),
  },
  {
    go: "TestGetPackage/FBCCache",
    catalog: server,
    check: (c) =>
      expect(getPackage(c, "etcd")).toEqual({
        defaultChannel: "alpha",
        channels: { alpha: "v4", beta: "v2", stable: "v4" },
      }),
  },
  {
    go: "TestGetPackage/FBCCacheWithDeprecations",
    catalog: serverDeprecations,
    check: (c) =>
      expect(getPackage(c, "cockroachdb")).toEqual({
        defaultChannel: "stable-v6.x",
        deprecated: "package cockroachdb is end of life.",
        channels: { "stable-5.x": "v2 (deprecated)", "stable-v6.x": "v3" },
      }),
  },
  {
    go: "TestGetBundleForChannel/FBCCache",
    catalog: server,
    check: (c) => expect(channelHead(c, "etcd", "alpha")).toBe("v4"),
  },
  {
    go: "TestGetChannelEntriesThatReplace/FBCCache",
    catalog: server,
    check: (c) => expect(entriesThatReplace(c, "etcd", "v1")).toEqual(["alpha/v2", "beta/v2", "stable/v2"]),
  },
  {
    // v5.0.4 replaces v5.0.3, which the catalog no longer holds: its downstreams still upgrade.
    go: "TestGetChannelEntriesThatReplace/FBCCacheWithDeprecations",
    catalog: serverDeprecations,
    check: (c) => {
      expect(entriesThatReplace(c, "cockroachdb", "v1")).toEqual(["stable-5.x/v2"]);
      expect(upgradePath(c, "cockroachdb", "v1", "stable-5.x")).toMatchObject({ path: ["v1", "v2"] });
    },
  },
  {
    go: "TestGetBundleThatReplaces/FBCCache",
    catalog: server,
    check: (c) => expect(upgradePath(c, "etcd", "v2", "alpha")).toMatchObject({ path: ["v2", "v4"] }),
  },
  {
    // v0.9.1 is no bundle of the catalog; v0.9.2 skips it.
    go: "TestGetBundleThatReplacesSynthetic/FBCCache",
    catalog: server,
    check: (c) => expect(upgradePath(c, "etcd", "v3", "alpha")).toMatchObject({ path: ["v3", "v4"] }),
  },
];

describe("operator-registry's cache and server answers, on its catalogs read off into porchlight's", () => {
  it.each(ROWS.map((r) => [r.go, r] as const))("%s", (_, row) => {
    row.check(parseCatalog(row.catalog).catalog);
  });
  it("gives operator-registry's answer in all 13 cases", () => {
    expect(ROWS.length).toBe(13);
  });
});
