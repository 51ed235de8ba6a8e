import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  addRevision,
  CatalogError,
  listChannels,
  parseCatalog,
  promote,
  reachingHead,
  removeRevision,
  skip,
  skippedIn,
  upgradePath,
  withdrawRevision,
} from "../../src/catalog/index.js";
import { testSize } from "../util/test-size.js";

const CHANNELS = ["stable", "beta", "alpha"];
const START = "# hand-written note that must survive\nschema: porchlight.catalog/v1\npackages: []\n";

type Op =
  | { op: "add"; channels: string[] }
  | { op: "promote"; pick: number; channel: string }
  | { op: "skip"; pick: number }
  | { op: "remove"; pick: number }
  /** A revision deleted (its tag gone): heads included, never refused. */
  | { op: "withdraw"; pick: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ op: fc.constant("add" as const), channels: fc.subarray(CHANNELS) }) },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant("promote" as const),
      pick: fc.nat(),
      channel: fc.constantFrom(...CHANNELS),
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("skip" as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("remove" as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("withdraw" as const), pick: fc.nat() }) },
);

function apply(text: string, op: Op, next: number): string {
  const { catalog } = parseCatalog(text);
  const revisions = catalog.packages[0]?.revisions.map((r) => r.revision) ?? [];
  const pick = (n: number) => revisions[n % Math.max(revisions.length, 1)] ?? "v1";
  switch (op.op) {
    case "add":
      return addRevision(text, {
        package: "p",
        revision: `v${next}`,
        commit: "abcdef0",
        time: "t",
        channels: op.channels,
      }).text;
    case "promote":
      return promote(text, "p", pick(op.pick), op.channel).text;
    case "skip":
      return skip(text, "p", pick(op.pick)).text;
    case "remove":
      return removeRevision(text, "p", pick(op.pick)).text;
    case "withdraw":
      return withdrawRevision(text, "p", pick(op.pick)).text;
  }
}

/** Operations the catalog must accept: a new revision; a newer one into a channel; skipping a replaced one. */
function shouldSucceed(text: string, op: Op): boolean {
  const { catalog } = parseCatalog(text);
  const pkg = catalog.packages[0];
  const revisions = pkg?.revisions.map((r) => r.revision) ?? [];
  const picked = revisions[("pick" in op ? op.pick : 0) % Math.max(revisions.length, 1)];
  const num = (r: string) => Number(r.slice(1));
  switch (op.op) {
    case "add":
      return true;
    case "promote": {
      const channel = pkg?.channels.find((c) => c.name === op.channel);
      if (!picked) return false;
      if (!channel) return true;
      const head = listChannels(catalog, "p")?.find((c) => c.name === op.channel)?.head;
      return !channel.entries.some((e) => e.name === picked) && (!head || num(head) <= num(picked));
    }
    case "skip": {
      const holding = pkg?.channels.filter((c) => c.entries.some((e) => e.name === picked)) ?? [];
      return holding.length > 0 && holding.every((c) => c.entries.some((e) => e.replaces === picked));
    }
    case "remove":
      return picked !== undefined && !(listChannels(catalog, "p") ?? []).some((c) => c.head === picked);
    case "withdraw":
      return picked !== undefined;
  }
}

/** Applies the operations in turn; fails if one is wrongly refused or leaves an entry without an upgrade. */
function checkSequence(ops: Op[]): void {
  let text = START;
  let next = 1;
  /** Every revision that was ever an entry of a channel: downstreams may be on it, removed or not. */
  const everIn = new Map<string, Set<string>>();
  for (const op of ops) {
    try {
      text = apply(text, op, next);
      if (op.op === "add") next++;
      // A channel moved back by a withdrawal owes nothing to revisions at or past its new head (no edge
      // leads back down, and none should); one it emptied is gone, and a channel of that name is new.
      if (op.op === "withdraw") {
        const heads = new Map(
          (listChannels(parseCatalog(text).catalog, "p") ?? []).map((c) => [c.name, c.head]),
        );
        for (const [name, seen] of everIn) {
          const head = heads.get(name);
          if (!head) everIn.delete(name);
          else
            for (const r of seen)
              if (Number(r.slice(1)) >= Number(head.slice(1)) && r !== head) seen.delete(r);
        }
      }
      for (const c of parseCatalog(text).catalog.packages[0]?.channels ?? []) {
        const seen = everIn.get(c.name) ?? new Set<string>();
        for (const e of c.entries) seen.add(e.name);
        everIn.set(c.name, seen);
      }
    } catch (err) {
      if (!(err instanceof CatalogError)) throw err;
      expect(shouldSucceed(text, op), `${JSON.stringify(op)} refused: ${err.message}\n${text}`).toBe(false);
    }
  }
  expect(text).toContain("# hand-written note that must survive");
  const { catalog } = parseCatalog(text);
  for (const channel of listChannels(catalog, "p") ?? []) {
    const raw = catalog.packages[0]?.channels.find((c) => c.name === channel.name);
    const skipped = raw ? skippedIn(raw) : new Set<string>();
    for (const entry of channel.entries) {
      const path = upgradePath(catalog, "p", entry.name, channel.name);
      expect(path.ok, `${entry.name} in ${channel.name}: ${JSON.stringify(path)}\n${text}`).toBe(true);
      if (!path.ok) continue;
      expect(path.path.at(-1)).toBe(channel.head);
      for (const step of path.path.slice(1)) expect(skipped.has(step)).toBe(false);
    }
    // reachingHead (the removal's check, linear) agrees with upgradePath on every revision it names.
    if (raw) {
      const reaching = reachingHead(catalog.packages[0] as NonNullable<(typeof catalog.packages)[0]>, raw);
      for (const from of new Set([...(everIn.get(channel.name) ?? []), ...reaching]))
        expect(reaching.has(from), `${from} in ${channel.name}\n${text}`).toBe(
          upgradePath(catalog, "p", from, channel.name).ok,
        );
    }
    // A revision removed from the catalog, or skipped, still leads its downstreams to the head.
    for (const from of everIn.get(channel.name) ?? []) {
      const path = upgradePath(catalog, "p", from, channel.name);
      expect(path.ok, `${from} (once in ${channel.name}): ${JSON.stringify(path)}\n${text}`).toBe(true);
    }
  }
}

describe("catalog operations (property)", () => {
  it("keep every channel valid, every entry upgradable to its head, and the file's comments", () => {
    // 80 sequences of 6 to 16 operations in npm test (every kind of operation many times over), 200 in npm
    // run test:full (PORCHLIGHT_CATALOG_RUNS sets it)
    fc.assert(fc.property(fc.array(opArb, { minLength: 6, maxLength: 16, size: "max" }), checkSequence), {
      numRuns: testSize("PORCHLIGHT_CATALOG_RUNS", 80, 200),
      seed: 7,
    });
  });
});

describe("catalog operations (found by the property)", () => {
  it.each<[string, Op[]]>([
    [
      "skipping an entry that skips others keeps them reachable",
      [
        { op: "add", channels: ["alpha"] },
        { op: "add", channels: ["alpha"] },
        { op: "skip", pick: 0 },
        { op: "add", channels: [] },
        { op: "add", channels: ["alpha"] },
        { op: "promote", pick: 0, channel: "stable" },
        { op: "skip", pick: 0 },
        { op: "skip", pick: 314457397 },
      ],
    ],
    [
      "removing an entry that skips others hands them to its successor",
      [
        { op: "add", channels: [] },
        { op: "add", channels: ["alpha"] },
        { op: "add", channels: ["alpha"] },
        { op: "remove", pick: 0 },
        { op: "add", channels: ["alpha"] },
        { op: "skip", pick: 0 },
        { op: "add", channels: [] },
        { op: "remove", pick: 588908557 },
        { op: "skip", pick: 0 },
        { op: "remove", pick: 0 },
        { op: "promote", pick: 0, channel: "stable" },
      ],
    ],
    [
      "skipping a revision two entries replace rewires both",
      [
        { op: "add", channels: [] },
        { op: "add", channels: ["stable"] },
        { op: "add", channels: ["stable"] },
        { op: "add", channels: ["stable"] },
        { op: "add", channels: ["stable"] },
        { op: "add", channels: [] },
        { op: "skip", pick: 1709602857 },
        { op: "add", channels: [] },
        { op: "skip", pick: 1913337449 },
        { op: "add", channels: [] },
        { op: "remove", pick: 1082923404 },
        { op: "remove", pick: 0 },
        { op: "add", channels: [] },
        { op: "add", channels: [] },
      ],
    ],
  ])("%s", (_name, ops) => checkSequence(ops));
});
