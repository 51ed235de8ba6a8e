import { stringify } from "yaml";

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
