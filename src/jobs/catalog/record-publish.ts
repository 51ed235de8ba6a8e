import { addRevision, type Catalog, CatalogError, revisionNumber, undeprecate } from "../../catalog/index.js";
import type { CommitAuthor, RepoPort } from "../../github/port.js";
import { indexRefs, type RefInfo } from "../../lifecycle/refs.js";
import { formatRevisionTag, parseRevisionTag } from "../../lifecycle/revision-tag.js";
import { publishChannels } from "./channels.js";
import { readCatalog } from "./read.js";
import { DELETED_PREFIX, withdrawFromCatalog } from "./withdraw.js";
import { type CatalogWrite, writeCatalog } from "./write.js";

export interface RecordPublishInput {
  package: string;
  revision: number;
  commit: string;
  /** The repository's default channel (config `channels.default`). */
  defaultChannel: string;
  author: CommitAuthor;
  now: Date;
}

/**
 * A published revision → its entry in catalog.yaml, in the channels its Kptfile names (annotation
 * `porchlight.dev/channels`) or the repository's default channel, where it replaces the channel's head.
 * Idempotent: a revision already in the catalog changes nothing.
 */
export async function recordPublished(port: RepoPort, input: RecordPublishInput): Promise<CatalogWrite> {
  const { tree } = await port.readTree(input.commit, input.package);
  const channels = publishChannels(tree.get("Kptfile")?.toString("utf8"), input.defaultChannel);
  const revision = `v${input.revision}`;
  return writeCatalog(port, {
    author: input.author,
    message: `catalog: add ${input.package} ${revision}${channels.length ? ` to ${channels.join(", ")}` : ""}`,
    edit: (state) => {
      if (!state.catalog) return { refused: state.problem ?? "the catalog cannot be read" };
      const pkg = state.catalog.packages.find((p) => p.name === input.package);
      // Recorded already, or removed from the catalog on purpose: either way, nothing to do.
      if (pkg?.revisions.some((r) => r.revision === revision) || pkg?.removed?.includes(revision))
        return { text: state.text };
      try {
        const added = addRevision(state.text, {
          package: input.package,
          revision,
          commit: input.commit,
          time: input.now.toISOString(),
          channels,
        }).text;
        // A package published again after its deletion was published: it is no longer deleted.
        const deleted = pkg?.deprecations?.some(
          (d) => d.reference.schema === "olm.package" && d.message.startsWith(DELETED_PREFIX),
        );
        return { text: deleted ? undeprecate(added, input.package, { schema: "olm.package" }).text : added };
      } catch (e) {
        if (e instanceof CatalogError) return { refused: e.message };
        throw e;
      }
    },
  });
}

/**
 * The sweep's catch-up, both ways: every revision the catalog records whose tag is gone (deleted by other
 * hands: `git push --delete`, Porch's own delete) is withdrawn, a channel it headed moving back; then every
 * revision tag newer than what the catalog holds for its package (a publish whose catalog write was lost to
 * a crash) is recorded, oldest first. Returns the tags recorded and withdrawn.
 */
export async function syncCatalogWithTags(
  port: RepoPort,
  input: Omit<RecordPublishInput, "package" | "revision" | "commit">,
): Promise<{ recorded: string[]; withdrawn: string[] }> {
  const refs = await port.listRefs();
  const catalog = (await readCatalog(port, refs)).catalog;
  if (!catalog) return { recorded: [], withdrawn: [] };
  // The catalog is read at the head these refs name, and a publish tags before it records: a revision it
  // holds whose tag these same refs lack was deleted, not published after the listing.
  const { tags: tagged } = indexRefs(refs);
  const withdrawn: string[] = [];
  for (const pkg of catalog.packages)
    for (const { revision } of pkg.revisions) {
      const tag = formatRevisionTag({ package: pkg.name, revision: revisionNumber(revision) });
      if (tagged.has(tag)) continue;
      const out = await withdrawFromCatalog(port, {
        package: pkg.name,
        revision,
        reason: "its tag is gone",
        author: input.author,
      });
      if (out.kind === "committed") withdrawn.push(tag);
    }
  return { recorded: await recordMissing(port, refs, catalog, input), withdrawn };
}

/** Records, oldest first, the revision tags newer than what `catalog` holds for their package. */
async function recordMissing(
  port: RepoPort,
  refs: readonly RefInfo[],
  catalog: Catalog,
  input: Omit<RecordPublishInput, "package" | "revision" | "commit">,
): Promise<string[]> {
  const known = (pkg: string) => {
    const p = catalog.packages.find((x) => x.name === pkg);
    return [...(p?.revisions.map((r) => r.revision) ?? []), ...(p?.removed ?? [])];
  };
  const tags = [...indexRefs(refs).tags]
    .flatMap(([tag, sha]) => {
      const parsed = parseRevisionTag(tag);
      return parsed.ok ? [{ ...parsed.value, sha, tag }] : [];
    })
    .sort((a, b) => a.package.localeCompare(b.package) || a.revision - b.revision);
  const recorded: string[] = [];
  for (const t of tags) {
    const newest = Math.max(0, ...known(t.package).map(revisionNumber));
    if (t.revision <= newest) continue;
    const out = await recordPublished(port, {
      ...input,
      package: t.package,
      revision: t.revision,
      commit: t.sha,
    });
    if (out.kind === "committed") recorded.push(t.tag);
  }
  return recorded;
}
