import { describe, expect, it } from "vitest";
import { channelHead, listPackages, parseCatalog, upgradePath } from "../../src/catalog/index.js";
import { catalogText, type Entry } from "./olm-cases.js";

/**
 * The graphs operator-registry's semver template emits (alpha/template/semver/semver_test.go,
 * TestLinkChannels and TestGenerateChannels), read off into catalogs: each is a valid catalog whose heads are the newest entries,
 * and every entry upgrades to its head. Bundles a-vX.Y.Z are revisions in version order: a-v0.1.0 v1,
 * a-v0.1.1 v2, a-v1.1.0 v3, a-v1.2.1 v4, a-v1.3.1 v5, a-v2.1.0 v6, a-v2.1.1 v7, a-v2.3.1 v8, a-v2.3.2 v9.
 */
const stableV0: Entry[] = [{ name: "v1" }, { name: "v2", skips: ["v1"] }];
const stableV1: Entry[] = [
  { name: "v3" },
  { name: "v4", replaces: "v3" },
  { name: "v5", replaces: "v4", skips: ["v3"] },
];

const ROWS: {
  go: string;
  channels: Record<string, Entry[]>;
  heads: Record<string, string>;
  paths: string[][];
}[] = [
  {
    go: "TestLinkChannels/No edges between successive major channels",
    channels: {
      "stable-v0": stableV0,
      "stable-v1": stableV1,
      "stable-v2": [
        { name: "v6" },
        { name: "v7", skips: ["v6"] },
        { name: "v8" },
        { name: "v9", replaces: "v7", skips: ["v6", "v8"] },
      ],
    },
    heads: { "stable-v0": "v2", "stable-v1": "v5", "stable-v2": "v9" },
    paths: [
      ["v6", "v9"],
      ["v8", "v9"],
      ["v3", "v5"],
    ],
  },
  {
    go: "TestLinkChannels/No edges between successive major channels where last edge is X change",
    channels: { "stable-v0": stableV0, "stable-v1": stableV1, "stable-v2": [{ name: "v6" }] },
    heads: { "stable-v0": "v2", "stable-v1": "v5", "stable-v2": "v6" },
    paths: [
      ["v1", "v2"],
      ["v4", "v5"],
    ],
  },
  {
    go: "TestLinkChannels/No edges between successive major channels where last edge is archetype change",
    channels: {
      "candidate-v2": [{ name: "v9" }],
      "stable-v1": stableV1,
      "stable-v2": [
        { name: "v6" },
        { name: "v7", skips: ["v6"] },
        { name: "v8", replaces: "v7", skips: ["v6"] },
      ],
    },
    heads: { "candidate-v2": "v9", "stable-v1": "v5", "stable-v2": "v8" },
    paths: [
      ["v6", "v8"],
      ["v7", "v8"],
    ],
  },
  {
    go: "TestLinkChannels/Minimum viable major channel",
    channels: { "stable-v0": [{ name: "v1" }] },
    heads: { "stable-v0": "v1" },
    paths: [["v1"]],
  },
];

// TestGenerateChannels' sixteen bundles, in version order: 0.1.0 v1, 0.1.1 v2, 1.1.0 v3, 1.2.1 v4,
// 1.3.1-alpha v5, 1.3.1-beta v6, 1.3.1 v7, 1.4.1-beta1 v8, 1.4.1-beta2 v9, 1.4.1 v10, 2.1.0 v11, 2.1.1 v12,
// 2.3.1 v13, 2.3.2 v14, 3.1.0 v15, 3.1.1 v16. A minor channel's oldest entry may replace one of the channel
// before it (v4 replaces v3): a revision the channel does not hold.
const v13x: Entry[] = [
  { name: "v5" },
  { name: "v6" },
  { name: "v7", replaces: "v4", skips: ["v3", "v5", "v6"] },
];
const v14x: Entry[] = [
  { name: "v8" },
  { name: "v9" },
  { name: "v10", replaces: "v7", skips: ["v3", "v4", "v5", "v6", "v8", "v9"] },
];
const MAJOR: Record<string, Entry[]> = {
  "stable-v0": [{ name: "v1" }, { name: "v2", skips: ["v1"] }],
  "stable-v1": [{ name: "v3" }, { name: "v4", replaces: "v3" }, ...v13x, ...v14x],
  "stable-v2": [
    { name: "v11" },
    { name: "v12", skips: ["v11"] },
    { name: "v13" },
    { name: "v14", replaces: "v12", skips: ["v11", "v13"] },
  ],
  "stable-v3": [{ name: "v15" }, { name: "v16", skips: ["v15"] }],
};
const MINOR: Record<string, Entry[]> = {
  "stable-v0.1": [{ name: "v1" }, { name: "v2", skips: ["v1"] }],
  "stable-v1.1": [{ name: "v3" }],
  "stable-v1.2": [{ name: "v4", replaces: "v3" }],
  "stable-v1.3": v13x,
  "stable-v1.4": v14x,
  "stable-v2.1": [{ name: "v11" }, { name: "v12", skips: ["v11"] }],
  "stable-v2.3": [{ name: "v13" }, { name: "v14", replaces: "v12", skips: ["v11", "v13"] }],
  "stable-v3.1": [{ name: "v15" }, { name: "v16", skips: ["v15"] }],
};
const GENERATED: { go: string; channels: Record<string, Entry[]>; defaultChannel: string }[] = [
  { go: "Edges between minor channels", channels: MINOR, defaultChannel: "stable-v3.1" },
  { go: "No edges between major channels", channels: MAJOR, defaultChannel: "stable-v3" },
  {
    go: "Preference for minor default channel",
    channels: { ...MINOR, ...MAJOR },
    defaultChannel: "stable-v3.1",
  },
  {
    go: "Preference for major default channel",
    channels: { ...MINOR, ...MAJOR },
    defaultChannel: "stable-v3",
  },
  {
    go: "Mismatch generate/preference minor/major default channel",
    channels: MINOR,
    defaultChannel: "stable-v3.1",
  },
  {
    go: "Mismatch generate/preference major/minor default channel",
    channels: MAJOR,
    defaultChannel: "stable-v3",
  },
];

describe("operator-registry's semver template graphs (TestGenerateChannels), read off into catalogs", () => {
  it.each(GENERATED.map((r) => [r.go, r] as const))("%s", (_, row) => {
    const revisions = Array.from({ length: 16 }, (_, i) => `v${i + 1}`);
    const text = catalogText({
      name: "a",
      defaultChannel: row.defaultChannel,
      revisions,
      channels: row.channels,
    });
    const { catalog } = parseCatalog(text);
    expect(listPackages(catalog)[0]?.defaultChannel).toBe(row.defaultChannel);
    for (const [channel, entries] of Object.entries(row.channels)) {
      const newest = entries.at(-1)?.name;
      expect(channelHead(catalog, "a", channel)).toBe(newest);
      for (const e of entries)
        expect(upgradePath(catalog, "a", e.name, channel).ok, `${e.name} in ${channel}`).toBe(true);
    }
    // The replaced revision a minor channel does not hold still upgrades: v3 (1.1.0) in stable-v1.2.
    if (row.channels["stable-v1.2"])
      expect(upgradePath(catalog, "a", "v3", "stable-v1.2")).toEqual({ ok: true, path: ["v3", "v4"] });
  });
});

describe("operator-registry's semver template graphs, read off into catalogs", () => {
  it.each(ROWS.map((r) => [r.go, r] as const))("%s", (_, row) => {
    const names = Object.values(row.channels).flatMap((entries) => entries.map((e) => e.name));
    const revisions = [...new Set(names)].sort((a, b) => Number(a.slice(1)) - Number(b.slice(1)));
    const defaultChannel = Object.keys(row.channels)[0];
    const { catalog } = parseCatalog(
      catalogText({ name: "a", defaultChannel, revisions, channels: row.channels }),
    );
    for (const [channel, head] of Object.entries(row.heads))
      expect(channelHead(catalog, "a", channel)).toBe(head);
    for (const [channel, entries] of Object.entries(row.channels))
      for (const e of entries)
        expect(upgradePath(catalog, "a", e.name, channel).ok, `${e.name} in ${channel}`).toBe(true);
    for (const path of row.paths) {
      const channel =
        Object.keys(row.channels).find((c) => row.channels[c]?.some((e) => e.name === path[0])) ?? "";
      expect(upgradePath(catalog, "a", path[0] ?? "", channel)).toEqual({ ok: true, path });
    }
  });
});
