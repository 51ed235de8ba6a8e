import { parseRevisionTag } from "../../lifecycle/revision-tag.js";
import {
  type PublishedRevision,
  type UpstreamPackageState,
  upstreamFromCatalog,
} from "../../variants/index.js";
import { type CatalogState, readCatalog } from "../catalog/read.js";
import type { RepoSnapshot } from "./snapshot.js";

export interface UpstreamRepoState {
  packages: Record<string, UpstreamPackageState>;
  catalog: CatalogState;
}

/**
 * What fan-out knows of an upstream repository's packages: the published revisions are its tags
 * `<package>/v<N>` (so a revision whose catalog write was lost still counts), the channel heads come from
 * its catalog, and only heads that are published count.
 */
export async function readUpstreamState(snapshot: RepoSnapshot): Promise<UpstreamRepoState> {
  const catalog = await readCatalog(snapshot.port, snapshot.refs);
  const byPackage = new Map<string, { n: number; r: PublishedRevision }[]>();
  for (const [tag, sha] of snapshot.tags) {
    const parsed = parseRevisionTag(tag);
    if (!parsed.ok) continue;
    const list = byPackage.get(parsed.value.package) ?? [];
    list.push({ n: parsed.value.revision, r: { revision: `v${parsed.value.revision}`, commit: sha } });
    byPackage.set(parsed.value.package, list);
  }
  const fromCatalog = catalog.catalog ? upstreamFromCatalog(catalog.catalog) : {};
  const packages: Record<string, UpstreamPackageState> = {};
  for (const [pkg, list] of byPackage) {
    const revisions = list.sort((a, b) => a.n - b.n).map((x) => x.r);
    const published = new Set(revisions.map((r) => r.revision));
    const heads = Object.entries(fromCatalog[pkg]?.channelHeads ?? {}).filter(([, head]) =>
      published.has(head),
    );
    packages[pkg] = { revisions, channelHeads: Object.fromEntries(heads) };
  }
  return { packages, catalog };
}
