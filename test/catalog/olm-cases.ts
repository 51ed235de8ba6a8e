import { expect, it } from "vitest";
import { stringify } from "yaml";
import { CatalogError, channelHead, parseCatalog, upgradePath } from "../../src/catalog/index.js";

/**
 * operator-registry's graph tests, read off into catalogs: a bundle is a package revision (numbered in
 * version order, one package-wide sequence shared by its channels, as kpt numbers revisions), a name the
 * Go test gives no bundle for is a revision the catalog no longer holds (`removed`, or absent: pruned).
 */
export interface Entry {
  name: string;
  replaces?: string;
  skips?: string[];
  skipRange?: string;
}

export interface PackageSpec {
  name?: string;
  defaultChannel?: string;
  revisions: string[];
  channels?: Record<string, Entry[]>;
  removed?: string[];
  deprecations?: { reference: Record<string, string>; message: string }[];
}

const SHA = "0123456789abcdef0123456789abcdef01234567";

/** A catalog file with these packages (`basens` unless named), every revision on one commit and time. */
export function catalogText(...packages: PackageSpec[]): string {
  return stringify({
    schema: "porchlight.catalog/v1",
    packages: packages.map((p) => ({
      name: p.name ?? "basens",
      ...(p.defaultChannel === undefined ? {} : { defaultChannel: p.defaultChannel }),
      revisions: p.revisions.map((revision) => ({ revision, commit: SHA, time: "2024-05-01T10:00:00Z" })),
      channels: Object.entries(p.channels ?? {}).map(([name, entries]) => ({ name, entries })),
      ...(p.removed ? { removed: p.removed } : {}),
      ...(p.deprecations ? { deprecations: p.deprecations } : {}),
    })),
  });
}

/** v1 … vN. */
export const revisions = (n: number): string[] => Array.from({ length: n }, (_, i) => `v${i + 1}`);

/**
 * operator-registry's validation of the channel graph (alpha/model/model_test.go and
 * alpha/declcfg/declcfg_to_model_test.go), each case read off into a catalog. `olm` is operator-registry's
 * answer: valid, or refused (with porchlight's wording of the reason); `heads` and `paths` what porchlight
 * answers on a valid one. A row with `difference` is porchlight's one deliberate difference (docs/catalog.md):
 * its answer is porchlight's, and the row says why.
 */
export interface ValidityRow {
  go: string;
  pkg: PackageSpec | PackageSpec[];
  olm: "valid" | { refused: RegExp; field?: string };
  heads?: Record<string, string>;
  paths?: Record<string, string[]>;
  difference?: string;
}

/** Runs validity rows: the verdict, the field it names, and on a valid catalog the heads and paths. */
export function checkValidity(rows: ValidityRow[]): void {
  it.each(rows.map((r) => [r.go, r] as const))("%s", (_, row) => {
    const packages = Array.isArray(row.pkg) ? row.pkg : [row.pkg];
    const text = catalogText(...packages);
    let problems: CatalogError["problems"] | undefined;
    let catalog: ReturnType<typeof parseCatalog>["catalog"] | undefined;
    try {
      catalog = parseCatalog(text).catalog;
    } catch (err) {
      if (!(err instanceof CatalogError)) throw err;
      problems = err.problems;
    }
    if (row.olm !== "valid") {
      expect(problems, `accepted:\n${text}`).toBeDefined();
      const refused = row.olm.refused;
      const problem = problems?.find((p) => refused.test(p.message));
      expect(problem, JSON.stringify(problems)).toBeDefined();
      if (row.olm.field) expect(problem?.field).toBe(row.olm.field);
      expect(problem?.line).toBeGreaterThan(0);
      return;
    }
    expect(problems, JSON.stringify(problems)).toBeUndefined();
    if (!catalog) return;
    const name = packages[0]?.name ?? "basens";
    for (const [channel, head] of Object.entries(row.heads ?? {}))
      expect(channelHead(catalog, name, channel)).toBe(head);
    // porchlight's invariant: the head reaches every entry, along the path `catalog path` shows.
    for (const channel of catalog.packages[0]?.channels ?? [])
      for (const entry of channel.entries)
        expect(
          upgradePath(catalog, name, entry.name, channel.name).ok,
          `${entry.name} in ${channel.name}`,
        ).toBe(true);
    const channel = catalog.packages[0]?.channels[0]?.name ?? "";
    for (const [from, path] of Object.entries(row.paths ?? {}))
      expect(upgradePath(catalog, name, from, channel)).toEqual({ ok: true, path });
  });
}
