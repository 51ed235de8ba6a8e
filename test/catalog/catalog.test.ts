import { describe, expect, it } from "vitest";
import {
  addRevision,
  CatalogError,
  channelHead,
  deprecate,
  listChannels,
  listRevisions,
  parseCatalog,
  promote,
  removeRevision,
  skip,
  upgradePath,
  withdrawRevision,
} from "../../src/catalog/index.js";
import { codeBlock } from "../util/codeblock.js";

const SHA = "0123456789abcdef0123456789abcdef01234567";
const publish = (text: string, revision: string, channels: string[]) =>
  addRevision(text, { package: "basens", revision, commit: SHA, time: "2024-05-01T10:00:00Z", channels })
    .text;

/** A block as it sits under a package entry of the catalog (4 spaces in). */
const nested = (block: string) => block.replace(/^(?=.)/gm, "    ");

function catalogWith(...steps: Array<[string, string[]]>): string {
  return steps.reduce((text, [rev, channels]) => publish(text, rev, channels), "");
}

describe("catalog edits", () => {
  it("adds revisions that replace each channel's head, keeping comments", () => {
    const start = codeBlock`
      # the catalog of acme/blueprints
      schema: porchlight.catalog/v1 # do not edit by hand
      packages: []
    `;
    const text = [
      ["v1", ["stable", "beta"]],
      ["v2", ["beta"]],
      ["v3", ["beta"]],
    ].reduce((t, [rev, ch]) => publish(t, rev as string, ch as string[]), start);
    expect(text).toContain("# the catalog of acme/blueprints");
    expect(text).toBe(codeBlock`
      # the catalog of acme/blueprints
      schema: porchlight.catalog/v1 # do not edit by hand
      packages:
        - name: basens
          defaultChannel: stable
          revisions:
            - revision: v1
              commit: ${SHA}
              time: 2024-05-01T10:00:00Z
            - revision: v2
              commit: ${SHA}
              time: 2024-05-01T10:00:00Z
            - revision: v3
              commit: ${SHA}
              time: 2024-05-01T10:00:00Z
          channels:
            - name: stable
              entries:
                - name: v1
            - name: beta
              entries:
                - name: v1
                - name: v2
                  replaces: v1
                - name: v3
                  replaces: v2
    `);
    const { catalog } = parseCatalog(text);
    expect(channelHead(catalog, "basens", "beta")).toBe("v3");
    expect(channelHead(catalog, "basens", "stable")).toBe("v1");
  });

  it("promotes a revision into a channel, never backwards", () => {
    let text = catalogWith(["v1", ["stable", "beta"]], ["v2", ["beta"]], ["v3", ["beta"]]);
    text = promote(text, "basens", "v3", "stable").text;
    const { catalog } = parseCatalog(text);
    expect(channelHead(catalog, "basens", "stable")).toBe("v3");
    expect(listChannels(catalog, "basens")?.[0]?.entries).toEqual([
      { name: "v3", replaces: "v1", skips: [] },
      { name: "v1", skips: [] },
    ]);
    expect(() => promote(text, "basens", "v2", "stable")).toThrow(
      /older than v3, the head of channel stable/,
    );
    expect(() => promote(text, "basens", "v3", "stable")).toThrow(/in channel stable already/);
    expect(() => promote(text, "basens", "v9", "stable")).toThrow(/no published revision v9/);
  });

  it("skips a revision so downstreams jump over it and it is never offered", () => {
    let text = catalogWith(["v1", ["stable"]], ["v2", ["stable"]], ["v3", ["stable"]]);
    text = skip(text, "basens", "v2").text;
    const { catalog } = parseCatalog(text);
    expect(listChannels(catalog, "basens")?.[0]?.entries).toEqual([
      { name: "v3", replaces: "v1", skips: ["v2"] },
      { name: "v1", skips: [] },
      { name: "v2", replaces: "v1", skips: [] },
    ]);
    expect(upgradePath(catalog, "basens", "v1", "stable")).toEqual({ ok: true, path: ["v1", "v3"] });
    expect(upgradePath(catalog, "basens", "v2", "stable")).toEqual({ ok: true, path: ["v2", "v3"] });
    expect(listRevisions(catalog, "basens")?.[1]).toMatchObject({ revision: "v2", skippedIn: ["stable"] });
    expect(() => skip(text, "basens", "v3")).toThrow(/head of channel stable/);
  });

  it("removes a revision, rewiring the channel so downstreams left on it still reach the head", () => {
    let text = catalogWith(["v1", ["stable"]], ["v2", ["stable"]], ["v3", ["stable"]]);
    text = removeRevision(text, "basens", "v2").text;
    expect(text).toContain(
      nested(codeBlock`
          channels:
            - name: stable
              entries:
                - name: v1
                - name: v3
                  replaces: v1
                  skips:
                    - v2
          removed:
            - v2
    `),
    );
    const { catalog } = parseCatalog(text);
    expect(catalog.packages[0]?.revisions.map((r) => r.revision)).toEqual(["v1", "v3"]);
    expect(upgradePath(catalog, "basens", "v1", "stable")).toEqual({ ok: true, path: ["v1", "v3"] });
    expect(upgradePath(catalog, "basens", "v2", "stable")).toEqual({ ok: true, path: ["v2", "v3"] });
    text = removeRevision(text, "basens", "v1").text;
    expect(parseCatalog(text).catalog.packages[0]).toMatchObject({
      channels: [{ name: "stable", entries: [{ name: "v3", skips: ["v2", "v1"] }] }],
      removed: ["v2", "v1"],
    });
  });

  it("refuses to remove a channel head, naming the upgrade path it would break", () => {
    const text = catalogWith(["v1", ["stable"]], ["v2", ["stable"]], ["v3", ["stable", "beta"]]);
    expect(() => removeRevision(text, "basens", "v3")).toThrow(
      "basens v3 is the head of channel stable: removing it would break the upgrade path v1 -> v2 -> v3 (the channel would move back to v2, and downstreams on v3 would have no upgrade)",
    );
    expect(() => removeRevision(text, "basens", "v9")).toThrow(/no published revision v9/);
    expect(() => removeRevision(promote(text, "basens", "v1", "alpha").text, "basens", "v1")).toThrow(
      "basens v1 is the only entry of channel alpha: removing it would leave the channel's followers nothing to follow",
    );
    const once = removeRevision(text, "basens", "v1").text;
    expect(() => removeRevision(once, "basens", "v1")).toThrow(/v1 was removed from the catalog already/);
  });

  it("withdraws a deleted head: the channel moves back along its graph, and the number stays taken", () => {
    let text = catalogWith(
      ["v1", ["stable", "beta"]],
      ["v2", ["stable", "beta"]],
      ["v3", ["stable", "beta"]],
    );
    text = skip(text, "basens", "v2").text.replace("defaultChannel: stable", "defaultChannel: beta");
    text = promote(text, "basens", "v3", "solo").text;
    text = withdrawRevision(text, "basens", "v3").text;
    const { catalog } = parseCatalog(text);
    // stable was v1 <- v2, v1 <- v3 skipping v2: v2, the newest entry v3 pointed at, heads it again
    expect(channelHead(catalog, "basens", "stable")).toBe("v2");
    expect(channelHead(catalog, "basens", "beta")).toBe("v2");
    expect(catalog.packages[0]?.channels.map((c) => c.name)).toEqual(["stable", "beta"]);
    expect(catalog.packages[0]?.revisions.map((r) => r.revision)).toEqual(["v1", "v2"]);
    expect(catalog.packages[0]?.removed).toEqual(["v3"]);
    expect(text).not.toMatch(/name: v3|revision: v3/);
    expect(upgradePath(catalog, "basens", "v1", "stable")).toEqual({ ok: true, path: ["v1", "v2"] });
    expect(() => publish(text, "v3", ["stable"])).toThrow(/v3 was removed from the catalog/);
    expect(channelHead(parseCatalog(publish(text, "v4", ["stable"])).catalog, "basens", "stable")).toBe("v4");
    expect(() => withdrawRevision(text, "basens", "v3")).toThrow(/v3 was removed from the catalog already/);
  });

  it("withdraws a head that skipped entries: the newest left heads and skips the rest", () => {
    const text = codeBlock`
      schema: porchlight.catalog/v1
      packages:
        - name: basens
          defaultChannel: stable
          revisions:
            - {revision: v1, commit: ${SHA}, time: "2024-05-01T10:00:00Z"}
            - {revision: v2, commit: ${SHA}, time: "2024-05-01T10:00:00Z"}
            - {revision: v3, commit: ${SHA}, time: "2024-05-01T10:00:00Z"}
            - {revision: v4, commit: ${SHA}, time: "2024-05-01T10:00:00Z"}
          channels:
            - name: stable
              entries:
                - name: v1
                - name: v2
                - name: v4
                  replaces: v1
                  skips: [v2, v3]
    `;
    const { catalog } = parseCatalog(withdrawRevision(text, "basens", "v4").text);
    expect(catalog.packages[0]?.channels[0]?.entries).toEqual([
      { name: "v1" },
      { name: "v2", skips: ["v1"] },
    ]);
    // v3, outside the channel, is newer than v2: no edge leads back from it
    expect(upgradePath(catalog, "basens", "v1", "stable")).toEqual({ ok: true, path: ["v1", "v2"] });
  });

  it("withdraws the only entry of a channel: the channel goes, and the default moves to one left", () => {
    let text = catalogWith(["v1", ["beta"]], ["v2", ["stable", "beta"]]);
    text = withdrawRevision(text, "basens", "v2").text;
    const pkg = parseCatalog(text).catalog.packages[0];
    expect(pkg?.channels.map((c) => c.name)).toEqual(["beta"]);
    expect(pkg?.defaultChannel).toBe("beta");
    expect(channelHead(parseCatalog(text).catalog, "basens", "beta")).toBe("v1");
    const last = parseCatalog(withdrawRevision(text, "basens", "v1").text).catalog.packages[0];
    expect(last).toMatchObject({ channels: [], revisions: [], removed: ["v2", "v1"] });
    expect(last?.defaultChannel).toBeUndefined();
  });

  it("never records a removed revision again, and numbers on after it", () => {
    let text = catalogWith(["v1", ["stable"]], ["v2", ["stable"]], ["v3", ["stable"]]);
    text = removeRevision(text, "basens", "v2").text;
    expect(() => publish(text, "v2", ["stable"])).toThrow(/v2 was removed from the catalog/);
    text = publish(text, "v4", ["stable"]);
    expect(channelHead(parseCatalog(text).catalog, "basens", "stable")).toBe("v4");
  });

  it("deprecates a revision, a channel or the package as olm.deprecations entries, once each", () => {
    let text = catalogWith(["v1", ["stable", "beta"]], ["v2", ["stable"]]);
    text = deprecate(text, "basens", { schema: "olm.bundle", name: "v1" }, "v1 leaks its token; use v2").text;
    text = deprecate(text, "basens", { schema: "olm.channel", name: "beta" }, "beta is retired").text;
    text = deprecate(text, "basens", { schema: "olm.package" }, "moved to basens-ng").text;
    expect(deprecate(text, "basens", { schema: "olm.channel", name: "beta" }, "beta is retired").text).toBe(
      text,
    );
    text = deprecate(text, "basens", { schema: "olm.bundle", name: "v1" }, "v1 is broken").text;
    expect(text).toContain(
      nested(codeBlock`
          deprecations:
            - reference:
                schema: olm.bundle
                name: v1
              message: v1 is broken
            - reference:
                schema: olm.channel
                name: beta
              message: beta is retired
            - reference:
                schema: olm.package
              message: moved to basens-ng
    `),
    );
    expect(() => deprecate(text, "basens", { schema: "olm.channel", name: "alpha" }, "x")).toThrow(
      "basens has no channel alpha (channels: stable, beta)",
    );
    expect(() => deprecate(text, "basens", { schema: "olm.bundle", name: "v7" }, "x")).toThrow(
      /no published revision v7/,
    );
    // Deprecation is advice: the upgrade graph is as it was.
    expect(upgradePath(parseCatalog(text).catalog, "basens", "v1", "stable")).toEqual({
      ok: true,
      path: ["v1", "v2"],
    });
  });

  it("reports a deprecation naming nothing of the package, with its line", () => {
    const text = codeBlock`
      schema: porchlight.catalog/v1
      packages:
      - name: basens
        revisions:
        - {revision: v1, commit: abcdef1, time: t}
        deprecations:
        - reference: {schema: olm.bundle, name: v4}
          message: gone
    `;
    expect(() => parseCatalog(text)).toThrow(
      "catalog.yaml:7:43: packages[0].deprecations[0].reference.name: v4 is not a published revision of basens",
    );
  });

  it("keeps a package's defaultChannel and an entry's skipRange, with their comments, through edits", () => {
    let text = catalogWith(["v1", ["stable"]], ["v2", ["stable"]], ["v3", ["stable"]]);
    text = text
      .replace("defaultChannel: stable", "defaultChannel: stable # where followers that name none land")
      .replace(/(- name: v3\n(\s+)replaces: v2)/, '$1\n$2skipRange: "<2.0.0" # v1 jumps here');
    text = skip(text, "basens", "v2").text;
    text = publish(text, "v4", ["stable"]);
    expect(text).toContain("defaultChannel: stable # where followers that name none land");
    expect(text).toContain('skipRange: "<2.0.0" # v1 jumps here');
    const { catalog } = parseCatalog(text);
    expect(listChannels(catalog, "basens")?.[0]?.entries.find((e) => e.name === "v3")).toMatchObject({
      skipRange: "<2.0.0",
    });
    expect(upgradePath(catalog, "basens", "v1", "stable")).toEqual({ ok: true, path: ["v1", "v3", "v4"] });
  });

  it("edits a catalog written before defaultChannel, giving each package its first channel as default", () => {
    const legacy = catalogWith(
      ["v1", ["beta", "stable"]],
      ["v2", ["stable", "beta"]],
      ["v3", ["stable", "beta"]],
    ).replace(/\n\s+defaultChannel: beta/, "");
    expect(() => parseCatalog(legacy)).toThrow(/has channels \(beta, stable\) but no defaultChannel/);
    for (const edited of [removeRevision(legacy, "basens", "v1").text, skip(legacy, "basens", "v2").text])
      expect(parseCatalog(edited).catalog.packages[0]?.defaultChannel).toBe("beta");
  });

  it("refuses a revision twice or out of order", () => {
    const text = catalogWith(["v1", ["stable"]], ["v2", ["stable"]]);
    expect(() => publish(text, "v2", [])).toThrow(/in the catalog already/);
    expect(() => publish(text, "v1", [])).toThrow(CatalogError);
  });
});

describe("upgradePath", () => {
  it("walks replaces one step at a time, and prefers a skip straight to the head", () => {
    const text = codeBlock`
      schema: porchlight.catalog/v1
      packages:
      - name: basens
        defaultChannel: stable
        revisions:
        - {revision: v1, commit: abcdef1, time: t}
        - {revision: v2, commit: abcdef2, time: t}
        - {revision: v3, commit: abcdef3, time: t}
        - {revision: v4, commit: abcdef4, time: t}
        channels:
        - name: stable
          entries:
          - name: v4
            replaces: v3
            skips: [v1]
          - name: v3
            replaces: v2
          - name: v2
            replaces: v1
          - name: v1
    `;
    const { catalog } = parseCatalog(text);
    expect(upgradePath(catalog, "basens", "v1", "stable")).toEqual({ ok: true, path: ["v1", "v4"] });
    expect(upgradePath(catalog, "basens", "v2", "stable")).toEqual({ ok: true, path: ["v2", "v3", "v4"] });
    expect(upgradePath(catalog, "basens", "v4", "stable")).toEqual({ ok: true, path: ["v4"] });
    expect(upgradePath(catalog, "basens", "v9", "stable")).toMatchObject({
      ok: false,
      reason: /no upgrade path from v9/,
    });
    expect(upgradePath(catalog, "basens", "v1", "beta")).toMatchObject({
      ok: false,
      reason: /no channel beta \(channels: stable\)/,
    });
  });
});

describe("parseCatalog", () => {
  const head = codeBlock`
    schema: porchlight.catalog/v1
    packages:
    - name: basens
      defaultChannel: stable
      revisions:
      - {revision: v1, commit: abcdef1, time: t}
      - {revision: v2, commit: abcdef2, time: t}
      - {revision: v3, commit: abcdef3, time: t}
      channels:
      - name: stable
        entries:
  `;
  it.each([
    {
      name: "two heads",
      entries: "    - name: v1\n    - name: v2\n",
      problem: { line: 12, field: "packages[0].channels[0].entries", message: /several heads \(v1, v2\)/ },
    },
    {
      name: "a cycle",
      entries: "    - {name: v1, replaces: v2}\n    - {name: v2, replaces: v1}\n",
      problem: { line: 12, message: /has no head: its replaces\/skips edges form a cycle/ },
    },
    {
      name: "an entry nothing replaces",
      entries: "    - {name: v3, replaces: v2}\n    - name: v2\n    - name: v1\n",
      problem: { message: /several heads/ },
    },
    {
      name: "an unknown revision",
      entries: "    - {name: v4, replaces: v3}\n    - name: v3\n",
      problem: {
        line: 12,
        field: "packages[0].channels[0].entries[0].name",
        message: /v4 is not a published revision of basens/,
      },
    },
    {
      name: "a misspelt field",
      entries: "    - {name: v3, replace: v2}\n",
      problem: {
        line: 12,
        column: 18,
        field: "packages[0].channels[0].entries[0].replace",
        message: /unknown field "replace"/,
      },
    },
  ])("reports $name with its line and field", ({ entries, problem }) => {
    let error: unknown;
    try {
      parseCatalog(head + entries, "catalog.yaml");
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(CatalogError);
    expect((error as CatalogError).problems[0]).toMatchObject({
      ...problem,
      message: expect.stringMatching(problem.message),
    });
  });
});
