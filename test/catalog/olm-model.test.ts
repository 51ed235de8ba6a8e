import { describe, expect, it } from "vitest";
import { checkValidity, type PackageSpec, revisions, type ValidityRow } from "./olm-cases.js";

// operator-registry's validation of the channel graph, case by case: see ValidityRow.

const anakin = (channels: PackageSpec["channels"], n = 5): PackageSpec => ({
  defaultChannel: "light",
  revisions: revisions(n),
  channels,
});

// anakin.v0.0.N is vN; the Validators' package is anakin with channel light: v1, v2 replacing v1.
const light = anakin({ light: [{ name: "v1" }, { name: "v2", replaces: "v1" }] }, 2);

const MODEL_ROWS: ValidityRow[] = [
  {
    go: "TestChannelHead/Success/Valid",
    pkg: anakin(
      { light: [{ name: "v1" }, { name: "v2" }, { name: "v3", replaces: "v1", skips: ["v2"] }] },
      3,
    ),
    olm: "valid",
    heads: { light: "v3" },
    paths: { v1: ["v1", "v3"], v2: ["v2", "v3"] },
  },
  {
    go: "TestChannelHead/Error/NoChannelHead",
    pkg: anakin(
      {
        light: [
          { name: "v1", replaces: "v3" },
          { name: "v3", replaces: "v1", skips: ["v2"] },
        ],
      },
      3,
    ),
    olm: { refused: /channel light has no head/, field: "packages[0].channels[0].entries" },
  },
  {
    go: "TestChannelHead/Error/MultipleChannelHeads",
    pkg: anakin({
      light: [{ name: "v1" }, { name: "v3", replaces: "v1", skips: ["v2"] }, { name: "v4", replaces: "v1" }],
    }),
    olm: { refused: /several heads \(v3, v4\)/ },
  },
  {
    go: "TestValidReplacesChain/Success/Valid",
    pkg: anakin({
      light: [
        { name: "v1" },
        { name: "v2", skips: ["v1"] },
        { name: "v3", skips: ["v2"] },
        { name: "v4", replaces: "v3" },
      ],
    }),
    olm: "valid",
    heads: { light: "v4" },
    paths: { v1: ["v1", "v2", "v3", "v4"], v2: ["v2", "v3", "v4"], v3: ["v3", "v4"] },
  },
  {
    go: "TestValidReplacesChain/Error/CycleNoHops",
    pkg: anakin({
      light: [
        { name: "v4", replaces: "v4" },
        { name: "v5", replaces: "v4" },
      ],
    }),
    olm: { refused: /cycle v4 -> v4/, field: "packages[0].channels[0].entries[0].replaces" },
  },
  {
    go: "TestValidReplacesChain/Error/CycleMultipleHops",
    pkg: anakin({
      light: [
        { name: "v1", replaces: "v3" },
        { name: "v2", replaces: "v1" },
        { name: "v3", replaces: "v2" },
        { name: "v4", replaces: "v3" },
      ],
    }),
    olm: { refused: /the replaces chain has a cycle v3 -> v2 -> v1 -> v3/ },
  },
  {
    go: "TestValidReplacesChain/Error/Stranded",
    pkg: anakin({ light: [{ name: "v1" }, { name: "v2", replaces: "v1" }, { name: "v3", skips: ["v2"] }] }),
    olm: { refused: /v1 is stranded in channel light/, field: "packages[0].channels[0].entries[0].name" },
  },
  {
    go: "TestValidReplacesChain/Error/SkippedReplacesStranded",
    pkg: anakin({
      light: [{ name: "v1" }, { name: "v2", replaces: "v1" }, { name: "v3", replaces: "v2", skips: ["v2"] }],
    }),
    olm: { refused: /v1 is stranded in channel light/ },
  },
  { go: "TestValidators/Model/Success/Valid", pkg: light, olm: "valid", heads: { light: "v2" } },
  {
    go: "TestValidators/Model/Error/InvalidPackage",
    pkg: { ...light, defaultChannel: "not-found" },
    olm: {
      refused: /not-found is not a channel of basens \(channels: light\)/,
      field: "packages[0].defaultChannel",
    },
  },
  { go: "TestValidators/Package/Success/Valid", pkg: light, olm: "valid", paths: { v1: ["v1", "v2"] } },
  {
    go: "TestValidators/Package/Error/NoName",
    pkg: { ...light, name: "" },
    olm: { refused: /at least 1 character|too small/i, field: "packages[0].name" },
  },
  {
    go: "TestValidators/Package/Error/NoChannels",
    pkg: { revisions: ["v1"] },
    olm: "valid",
    difference:
      "operator-registry needs a channel in every package; porchlight records a revision when it is published and promotes it into a channel later, so a package may have none yet",
  },
  {
    go: "TestValidators/Package/Error/NoDefaultChannel",
    pkg: { ...light, defaultChannel: undefined },
    olm: { refused: /has channels \(light\) but no defaultChannel/, field: "packages[0].defaultChannel" },
  },
  {
    go: "TestValidators/Package/Error/DefaultChannelNotInChannelMap",
    pkg: { ...light, defaultChannel: "not-found" },
    olm: { refused: /not-found is not a channel of basens/ },
  },
  { go: "TestValidators/Channel/Success/Valid", pkg: light, olm: "valid", heads: { light: "v2" } },
  {
    go: "TestValidators/Channel/Error/NoName",
    pkg: { ...light, defaultChannel: "", channels: { "": [{ name: "v1" }] } },
    olm: { refused: /must be a channel name/, field: "packages[0].channels[0].name" },
  },
  {
    go: "TestValidators/Channel/Error/NoBundles",
    pkg: { ...light, channels: { light: [] } },
    olm: { refused: /channel light has no entries/, field: "packages[0].channels[0].entries" },
  },
  {
    go: "TestValidators/Channel/Error/InvalidHead",
    pkg: anakin({ light: [{ name: "v1" }, { name: "v2" }] }, 2),
    olm: { refused: /several heads \(v1, v2\)/ },
  },
  {
    // anakin.v0.1.0 (v3) replaces v0.0.1 (v1) and skips v0.0.2 (v2).
    go: "TestValidators/Bundle/Success/Valid",
    pkg: anakin(
      {
        light: [
          { name: "v1" },
          { name: "v2", replaces: "v1" },
          { name: "v3", replaces: "v1", skips: ["v2"] },
        ],
      },
      3,
    ),
    olm: "valid",
    paths: { v1: ["v1", "v3"], v2: ["v2", "v3"] },
  },
  {
    // v0.1.0 (v2) replaces v0.0.0 (v1), which the catalog does not hold: pruned.
    go: "TestValidators/Bundle/Success/ReplacesNotInChannel",
    pkg: {
      defaultChannel: "light",
      revisions: ["v2"],
      channels: { light: [{ name: "v2", replaces: "v1" }] },
    },
    olm: "valid",
    heads: { light: "v2" },
    paths: { v1: ["v1", "v2"] },
  },
  {
    go: "TestValidators/Bundle/Error/EmptySkipsValue",
    pkg: anakin({ light: [{ name: "v1" }, { name: "v2", replaces: "v1", skips: [""] }] }, 2),
    olm: { refused: /must be a published revision/, field: "packages[0].channels[0].entries[1].skips[0]" },
  },
  {
    go: "TestValidators/Bundle/Success/EmptySkipRange",
    pkg: anakin({ light: [{ name: "v1" }, { name: "v3", replaces: "v1" }] }, 3),
    olm: "valid",
  },
  {
    go: "TestValidators/Bundle/Success/ValidSkipRange",
    pkg: anakin(
      {
        light: [
          { name: "v1" },
          { name: "v2", replaces: "v1" },
          { name: "v3", replaces: "v2", skipRange: ">=1.0.0 <2.0.0" },
        ],
      },
      3,
    ),
    olm: "valid",
    // v1 reads as 1.0.0, in the range: it upgrades straight to v3.
    paths: { v1: ["v1", "v3"], v2: ["v2", "v3"] },
  },
  {
    go: "TestValidators/Bundle/Error/InvalidSkipRange/LeadingV",
    pkg: anakin({ light: [{ name: "v1" }, { name: "v3", replaces: "v1", skipRange: ">v0.1.0" }] }, 3),
    olm: {
      refused: /invalid skipRange ">v0.1.0": ">v" in ">v0.1.0" is not a comparison/,
      field: "packages[0].channels[0].entries[1].skipRange",
    },
  },
  {
    go: "TestValidators/Bundle/Error/InvalidSkipRange/LeadingZero",
    pkg: anakin({ light: [{ name: "v1" }, { name: "v3", replaces: "v1", skipRange: ">1.00.1" }] }, 3),
    olm: { refused: /invalid skipRange ">1.00.1": "1.00.1" in ">1.00.1" is not a version/ },
  },
];

const foo = (spec: Partial<PackageSpec>): PackageSpec => ({ name: "foo", revisions: [], ...spec });

// foo.v0.1.0 is v1, foo.v0.2.0 v2, foo.v2.0.0 v3.
const DECLCFG_ROWS: ValidityRow[] = [
  {
    go: "TestConvertToModel/Error/PackageNoName",
    pkg: foo({ name: "", defaultChannel: "alpha" }),
    olm: { refused: /too small|at least 1/i, field: "packages[0].name" },
  },
  {
    // No channel in the package, and its default channel names one: refused by both (porchlight for the name).
    go: "TestConvertToModel/Error/BundleMissingChannel",
    pkg: foo({ defaultChannel: "alpha", revisions: ["v1"] }),
    olm: { refused: /alpha is not a channel of foo \(channels: none\)/ },
  },
  {
    go: "TestConvertToModel/Error/PackageMissingDefaultChannel",
    pkg: foo({ revisions: ["v1"], channels: { bar: [{ name: "v1" }] } }),
    olm: { refused: /no defaultChannel/, field: "packages[0].defaultChannel" },
  },
  {
    go: "TestConvertToModel/Error/PackageNonExistentDefaultChannel",
    pkg: foo({ defaultChannel: "bar", channels: { bar: [] } }),
    olm: { refused: /channel bar has no entries/ },
  },
  {
    go: "TestConvertToModel/Error/ChannelEntryWithoutBundle",
    pkg: foo({ defaultChannel: "alpha", channels: { alpha: [{ name: "v1" }] } }),
    olm: {
      refused: /v1 is not a published revision of foo/,
      field: "packages[0].channels[0].entries[0].name",
    },
  },
  {
    // Refused for its entry v1 without a revision; v2 in no channel alone is the deliberate difference below.
    go: "TestConvertToModel/Error/BundleWithoutChannelEntry",
    pkg: foo({ defaultChannel: "alpha", revisions: ["v2"], channels: { alpha: [{ name: "v1" }] } }),
    olm: { refused: /v1 is not a published revision of foo/ },
  },
  {
    go: "TestConvertToModel/Error/BundleWithoutChannelEntry (its v0.2.0 alone)",
    pkg: foo({ defaultChannel: "alpha", revisions: ["v1", "v2"], channels: { alpha: [{ name: "v1" }] } }),
    olm: "valid",
    difference:
      "operator-registry refuses a bundle no channel lists; porchlight records v2 when it is published, and `/promote` puts it in a channel later",
  },
  {
    go: "TestConvertToModel/Error/ChannelMissingName",
    pkg: foo({ defaultChannel: "alpha", revisions: ["v2"], channels: { "": [{ name: "v2" }] } }),
    olm: { refused: /must be a channel name/ },
  },
  {
    go: "TestConvertToModel/Error/ChannelDuplicateEntry",
    pkg: foo({
      defaultChannel: "alpha",
      revisions: ["v1"],
      channels: { alpha: [{ name: "v1" }, { name: "v1" }] },
    }),
    olm: { refused: /v1 appears twice in channel alpha/, field: "packages[0].channels[0].entries[1].name" },
  },
  {
    go: "TestConvertToModel/Error/DuplicatePackage",
    pkg: [
      foo({ defaultChannel: "alpha", revisions: ["v1"], channels: { alpha: [{ name: "v1" }] } }),
      foo({ defaultChannel: "alpha", revisions: ["v1"], channels: { alpha: [{ name: "v1" }] } }),
    ],
    olm: { refused: /package foo is listed twice/, field: "packages[1].name" },
  },
  {
    go: "TestConvertToModel/Error/DuplicateBundle",
    pkg: foo({ defaultChannel: "alpha", revisions: ["v1", "v1"], channels: { alpha: [{ name: "v1" }] } }),
    olm: { refused: /revision v1 is listed twice/, field: "packages[0].revisions[1].revision" },
  },
  {
    go: "TestConvertToModel/Error/Deprecation/OutOfBoundsBundle",
    pkg: foo({
      defaultChannel: "alpha",
      revisions: ["v1"],
      channels: { alpha: [{ name: "v1" }] },
      deprecations: [
        { reference: { schema: "olm.bundle", name: "v3" }, message: "foo.v2.0.0 is deprecated" },
      ],
    }),
    olm: {
      refused: /v3 is not a published revision of foo/,
      field: "packages[0].deprecations[0].reference.name",
    },
  },
  {
    go: "TestConvertToModel/Error/Deprecation/BadRefSchema",
    pkg: foo({
      defaultChannel: "alpha",
      revisions: ["v1"],
      channels: { alpha: [{ name: "v1" }] },
      deprecations: [{ reference: { schema: "badschema", name: "v1" }, message: "bad" }],
    }),
    olm: { refused: /./, field: "packages[0].deprecations[0].reference.schema" },
  },
  {
    go: "TestConvertToModel/Error/Deprecation/DuplicateRef",
    pkg: foo({
      defaultChannel: "alpha",
      revisions: ["v1"],
      channels: { alpha: [{ name: "v1" }] },
      deprecations: [
        { reference: { schema: "olm.bundle", name: "v1" }, message: "foo.v0.1.0 is deprecated" },
        { reference: { schema: "olm.bundle", name: "v1" }, message: "foo.v0.1.0 is deprecated" },
      ],
    }),
    olm: { refused: /revision v1 is deprecated twice/ },
  },
];

describe("operator-registry's alpha/model/model_test.go, read off into catalogs", () => {
  checkValidity(MODEL_ROWS);
  it("gives operator-registry's answer in 25 of its 26 cases; the other is the deliberate difference", () => {
    expect([MODEL_ROWS.length, MODEL_ROWS.filter((r) => r.difference).length]).toEqual([26, 1]);
  });
});

describe("operator-registry's alpha/declcfg/declcfg_to_model_test.go, read off into catalogs", () => {
  checkValidity(DECLCFG_ROWS);
  it("gives operator-registry's answer in its 13 cases; a 14th row, one of them cut down, is the deliberate difference", () => {
    expect([DECLCFG_ROWS.length, DECLCFG_ROWS.filter((r) => r.difference).length]).toEqual([14, 1]);
  });
});
