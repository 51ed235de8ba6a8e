import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  addRevision,
  CatalogError,
  type DeprecationReference,
  deprecate,
  EMPTY_CATALOG,
  knownCatalog,
  parseCatalog,
  promote,
  removeRevision,
  skip,
  undeprecate,
  withdrawRevision,
} from "../../src/catalog/index.js";
import { editPackage } from "../../src/catalog/known.js";
import { testSize } from "../util/test-size.js";

const SHA = "0123456789abcdef0123456789abcdef01234567";
const TIME = "2026-11-28T10:00:00.000Z";
const PACKAGES = ["alpha", "beta", "gamma", "delta"];
const CHANNELS = ["stable", "beta", "alpha"];

type Op =
  | { op: "add"; pkg: number; channels: string[] }
  | { op: "promote"; pkg: number; pick: number; channel: string }
  | { op: "skip" | "remove" | "withdraw"; pkg: number; pick: number }
  | { op: "deprecate" | "undeprecate"; pkg: number; what: "package" | "bundle" | "channel"; pick: number };

const pkgArb = fc.nat({ max: PACKAGES.length - 1 });
const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({ op: fc.constant("add" as const), pkg: pkgArb, channels: fc.subarray(CHANNELS) }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant("promote" as const),
      pkg: pkgArb,
      pick: fc.nat(),
      channel: fc.constantFrom(...CHANNELS),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      op: fc.constantFrom("skip" as const, "remove" as const, "withdraw" as const),
      pkg: pkgArb,
      pick: fc.nat(),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      op: fc.constantFrom("deprecate" as const, "undeprecate" as const),
      pkg: pkgArb,
      what: fc.constantFrom("package" as const, "bundle" as const, "channel" as const),
      pick: fc.nat(),
    }),
  },
);

/** `op` on `text`; what a user sees of it: the new text, or the refusal with every problem's place. */
function run(text: string, op: Op, next: number): { text: string } | { refused: string } {
  const pkg = PACKAGES[op.pkg] as string;
  const found = parseCatalog(text).catalog.packages.find((p) => p.name === pkg);
  const revisions = found?.revisions.map((r) => r.revision) ?? [];
  const pick = "pick" in op ? (revisions[op.pick % Math.max(revisions.length, 1)] ?? "v1") : "v1";
  const reference = (): DeprecationReference => {
    if (!("what" in op) || op.what === "package") return { schema: "olm.package" };
    if (op.what === "bundle") return { schema: "olm.bundle", name: pick };
    return { schema: "olm.channel", name: CHANNELS[op.pick % CHANNELS.length] as string };
  };
  try {
    switch (op.op) {
      case "add":
        return addRevision(text, {
          package: pkg,
          revision: `v${next}`,
          commit: SHA,
          time: TIME,
          channels: op.channels,
        });
      case "promote":
        return promote(text, pkg, pick, op.channel);
      case "skip":
        return skip(text, pkg, pick);
      case "remove":
        return removeRevision(text, pkg, pick);
      case "withdraw":
        return withdrawRevision(text, pkg, pick);
      case "deprecate":
        return deprecate(text, pkg, reference(), `gone #${next}: use something else`);
      case "undeprecate":
        return undeprecate(text, pkg, reference());
    }
  } catch (err) {
    if (err instanceof CatalogError) return { refused: err.message };
    throw err;
  }
}

/**
 * A catalog's edits are made on the lines of the one package they change where the text is known (what the
 * last edit wrote; known.ts): publishes inserted as lines, a deleted package's mark cut out, every other edit
 * made on the package's item alone (editPackage). The text with a blank line added at its end is the same
 * Document, but not known and not its own print: each operation on it is the whole file's edit, parsed and
 * printed whole, as every edit was made before. Both must write the same bytes — the users' file, in git —
 * and refuse the same operations with the same words, naming the same lines.
 */
describe("an edit of one package, made on its lines", () => {
  it("writes the bytes the whole file's edit writes, and refuses what it refuses, naming the same lines", () => {
    fc.assert(
      fc.property(fc.array(opArb, { minLength: 20, maxLength: 50 }), (ops) => {
        let text = EMPTY_CATALOG;
        let next = 1;
        for (const op of ops) {
          const whole = run(`${text}\n`, op, next);
          const lines = run(text, op, next);
          expect(lines, `${JSON.stringify(op)} on\n${text}`).toEqual(whole);
          if ("text" in lines) {
            text = lines.text;
            next++;
          }
        }
      }),
      { numRuns: testSize("PORCHLIGHT_CATALOG_EDIT_RUNS", 20, 400), seed: 1128 },
    );
  });

  it("keeps what a person wrote around and inside the packages as the whole file's edit kept it", () => {
    const start = [
      "# the catalog of acme/blueprints",
      "schema: porchlight.catalog/v1 # do not edit by hand",
      "packages:",
      "  - name: alpha # the first",
      "    defaultChannel: stable",
      "    revisions:",
      "      - revision: v1",
      `        commit: ${SHA}`,
      `        time: ${TIME}`,
      "",
      "      - revision: v2 # a fix",
      `        commit: ${SHA}`,
      `        time: "${TIME}"`,
      "    channels:",
      "      - name: stable",
      "        entries: [{name: v1}, {name: v2, replaces: v1}]",
      "",
      "  # beta is kept for the old clusters",
      "  - name: beta",
      "    defaultChannel: stable",
      "    revisions:",
      "      - revision: v1",
      `        commit: ${SHA}`,
      `        time: ${TIME}`,
      "    channels:",
      "      - name: stable",
      "        entries:",
      "          - name: v1",
      "  - name: gamma",
      "    revisions: []",
      "    removed: [v1]",
      "",
    ].join("\n");
    const ops: Op[] = [
      { op: "deprecate", pkg: 1, what: "package", pick: 0 },
      { op: "add", pkg: 1, channels: ["stable"] },
      { op: "undeprecate", pkg: 1, what: "package", pick: 0 },
      { op: "deprecate", pkg: 0, what: "bundle", pick: 0 },
      { op: "add", pkg: 0, channels: ["stable", "beta"] },
      { op: "skip", pkg: 0, pick: 1 },
      { op: "add", pkg: 2, channels: ["stable"] },
      { op: "withdraw", pkg: 1, pick: 0 },
      { op: "deprecate", pkg: 2, what: "channel", pick: 0 },
      { op: "withdraw", pkg: 0, pick: 0 },
      { op: "add", pkg: 1, channels: [] },
    ];
    let text = start;
    knownCatalog(text, "catalog.yaml");
    for (const [i, op] of ops.entries()) {
      const whole = run(`${text}\n`, op, 10 + i);
      expect(run(text, op, 10 + i), JSON.stringify(op)).toEqual(whole);
      if ("text" in whole) text = whole.text;
    }
    expect(text).toContain("  # beta is kept for the old clusters\n  - name: beta");
    expect(text).toContain("- name: alpha # the first");
  });

  it("is made on the package's lines, not the whole file's, where the text is known", () => {
    let text = EMPTY_CATALOG;
    for (const [n, pkg] of PACKAGES.entries())
      text = addRevision(text, {
        package: pkg,
        revision: `v${n + 1}`,
        commit: SHA,
        time: TIME,
        channels: ["stable"],
      }).text;
    knownCatalog(text, "catalog.yaml");
    const mark = (_: unknown, doc: { setIn(path: unknown[], value: unknown): void }) =>
      doc.setIn(["packages", 0, "deprecations"], [{ reference: { schema: "olm.package" }, message: "gone" }]);
    const alone = editPackage(text, "catalog.yaml", "beta", mark);
    expect(alone?.text).toBe(deprecate(`${text}\n`, "beta", { schema: "olm.package" }, "gone").text);
    // the other packages' lines are the text's own
    expect(alone?.text.startsWith(text.slice(0, text.indexOf("  - name: beta")))).toBe(true);
    expect(alone?.text.endsWith(text.slice(text.indexOf("  - name: gamma")))).toBe(true);
  });
});
