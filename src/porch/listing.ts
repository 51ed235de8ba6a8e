import type { PackageRevision } from "../lifecycle/index.js";
import type { PorchTask, PublishInfo } from "../lifecycle/kpt-trailer.js";
import type { SelectableRevision } from "./field-selectors.js";
import { nameOf } from "./names.js";
import {
  LATEST_LABEL,
  type PackageMetadata,
  type PackageRevisionObject,
  packageRevisionObject,
} from "./objects.js";
import type { RevisionMetadata } from "./registrations.js";
import type { PorchEnv, Repository } from "./repository.js";
import type { RevisionUpstream } from "./upstream-lock.js";

/** A revision's fields as Porch's field selectors read them. */
export function selectable(repo: Repository, r: PackageRevision): SelectableRevision {
  return {
    name: nameOf(repo, r),
    namespace: repo.namespace,
    repository: repo.name,
    packageName: r.package,
    workspaceName: r.workspace,
    revision: r.revision,
    lifecycle: r.lifecycle,
  };
}

/** A revision's labels as its object shows them: its own, and Porch's latest-revision label. */
export function revisionLabels(
  r: PackageRevision,
  own: RevisionMetadata | undefined,
): Record<string, string> {
  return { ...own?.labels, ...(r.latest ? { [LATEST_LABEL]: "true" } : {}) };
}

/** What a listing's door needs read besides the revisions themselves (its output, its selectors). */
export interface Needs {
  upstreams: boolean;
  tasks: boolean;
  packageMetadata: boolean;
  metadata: boolean;
}

/** Revisions listed, each with its repository, and what was read of them besides. */
export interface Listing {
  revisions: PackageRevision[];
  repoFor: (r: PackageRevision) => Repository;
  upstreams: Map<PackageRevision, RevisionUpstream>;
  tasks: Map<PackageRevision, PorchTask[]>;
  /** Who published each published revision and when, read with its tasks. */
  published: Map<PackageRevision, PublishInfo>;
  metadata: Map<PackageRevision, RevisionMetadata>;
  packageMetadata: Map<PackageRevision, PackageMetadata>;
}

/**
 * Where each downstream revision comes from (one Kptfile read per revision), how each began
 * (spec.tasks), and each revision's own labels and annotations (one read of each namespace's
 * .porchlight): read only where `needs` asks. What reads them (Kptfiles and their merge, the
 * namespace's registry) is loaded only then: porchctl's table, the listing a person types most, starts
 * without it.
 */
export async function readDetails(
  needs: Needs,
  env: PorchEnv,
  repos: readonly Repository[],
  revisions: readonly PackageRevision[],
  repoFor: (r: PackageRevision) => Repository,
): Promise<Pick<Listing, "upstreams" | "tasks" | "published" | "metadata" | "packageMetadata">> {
  const upstreams = new Map<PackageRevision, RevisionUpstream>();
  const tasks = new Map<PackageRevision, PorchTask[]>();
  const published = new Map<PackageRevision, PublishInfo>();
  const metadata = new Map<PackageRevision, RevisionMetadata>();
  const packageMetadata = new Map<PackageRevision, PackageMetadata>();
  if (needs.upstreams || needs.tasks || needs.packageMetadata) {
    const { kptfileReader, readHistories, readPackageMetadata, readUpstreams } = await import(
      "./upstream-lock.js"
    );
    for (const repo of repos) {
      const mine = revisions.filter((r) => repoFor(r) === repo);
      // each Kptfile read once for both its upstream and its package metadata
      const kptfiles = kptfileReader(repo);
      if (needs.upstreams)
        for (const [r, up] of await readUpstreams(repo, mine, kptfiles)) upstreams.set(r, up);
      if (needs.tasks) {
        const read = await readHistories(repo, mine);
        for (const [r, t] of read.tasks) tasks.set(r, t);
        for (const [r, p] of read.published) published.set(r, p);
      }
      if (needs.packageMetadata)
        for (const [r, m] of await readPackageMetadata(repo, mine, kptfiles)) packageMetadata.set(r, m);
    }
  }
  if (needs.metadata) {
    const { namespaceRevisionMetadata } = await import("./metadata.js");
    const namespaces = [...new Set(repos.map((r) => r.namespace))];
    const byNamespace = new Map(
      await Promise.all(
        namespaces.map(async (ns) => [ns, await namespaceRevisionMetadata(env, ns)] as const),
      ),
    );
    for (const r of revisions) {
      const repo = repoFor(r);
      const found = byNamespace.get(repo.namespace)?.get(nameOf(repo, r));
      if (found) metadata.set(r, found);
    }
  }
  return { upstreams, tasks, published, metadata, packageMetadata };
}

/** The listing's revisions as PackageRevision objects, with what was read of them. */
export function objectsOf(listing: Listing): PackageRevisionObject[] {
  const { revisions, repoFor, upstreams, tasks, metadata, packageMetadata } = listing;
  return revisions.map((r) =>
    packageRevisionObject(repoFor(r), r, {
      upstreamLock: upstreams.get(r)?.lock,
      tasks: tasks.get(r),
      published: listing.published.get(r),
      metadata: metadata.get(r),
      packageMetadata: packageMetadata.get(r),
    }),
  );
}
