import { taggedRevisions } from "../../lifecycle/kpt-trailer.js";
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
  // Each revision's workspace, for `upstream.workspaceName`: one read of the tagged commits' messages.
  for (const { sha, package: pkg, revision, workspace } of await taggedRevisions(snapshot.tags, (shas) =>
    snapshot.port.commitMessages(shas),
  )) {
    const list = byPackage.get(pkg) ?? [];
    list.push({
      n: revision,
      r: { revision: `v${revision}`, commit: sha, ...(workspace ? { workspace } : {}) },
    });
    byPackage.set(pkg, list);
  }
  const fromCatalog = catalog.catalog ? upstreamFromCatalog(catalog.catalog) : {};
  const packages: Record<string, UpstreamPackageState> = {};
  for (const [pkg, list] of byPackage) {
    const revisions = list.sort((a, b) => a.n - b.n).map((x) => x.r);
    const published = new Set(revisions.map((r) => r.revision));
    const heads = Object.entries(fromCatalog[pkg]?.channelHeads ?? {}).filter(([, head]) =>
      published.has(head),
    );
    const defaultChannel = fromCatalog[pkg]?.defaultChannel;
    packages[pkg] = {
      revisions,
      channelHeads: Object.fromEntries(heads),
      ...(defaultChannel !== undefined ? { defaultChannel } : {}),
      branch: snapshot.repository.defaultBranch,
    };
  }
  return { packages, catalog };
}
