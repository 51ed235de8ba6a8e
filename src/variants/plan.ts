import { type Catalog, findHead } from "../catalog/index.js";
import { formatSource, type PackageSource } from "../kpt/source-ref.js";
import { formatVariantBranch } from "../lifecycle/variant-branch.js";
import type { LoadedVariant } from "./parse.js";
import type {
  DownstreamPackageState,
  FanoutAction,
  FanoutPlan,
  ManagedPackage,
  OpenPullRequest,
  PackageRef,
  PublishedRevision,
  SourceIndex,
  UpstreamIndex,
  UpstreamPackageState,
} from "./plan-types.js";
import type { VariantProblem } from "./problem.js";
import { type GitUpstream, isSourceUpstream, type PackageVariant, type SourceUpstream } from "./schema.js";
import { declaredSource, shortDigest, sourceKey, sourceOf, sourcePackageRef } from "./source-upstream.js";
import { variantSpecHash } from "./tracking.js";

export interface FanoutInput {
  /** The valid variants (from loadVariants). */
  variants: readonly (LoadedVariant | PackageVariant)[];
  /** Problems from loading the variant files: their variants are reported as skipped, never deleted. */
  problems?: readonly VariantProblem[];
  upstream: UpstreamIndex;
  /**
   * The digests OCI upstreams' tags and tarball upstreams' URLs resolve to now, by `sourceKey` (one
   * request per image or archive).
   */
  sources?: SourceIndex;
  /** Per variant name: its downstream as it is now. A variant missing here has no downstream yet. */
  downstream: Readonly<Record<string, DownstreamPackageState>>;
  /** Downstream packages carrying a variant's annotations, to find those whose variant is gone. */
  managed?: readonly ManagedPackage[];
}

/**
 * Decides, for every variant, the one step that moves its downstream toward what the variant asks for:
 * clone it, update it (a pull request from the locked revision to the target), nothing (converged, or a
 * pull request already proposes exactly that), or skip (paused, or a problem a person must fix). A
 * downstream whose variant is gone gets a deletion proposal or is orphaned, per the policy it recorded.
 * Pure and level-triggered: the same state always gives the same plan, and a converged state gives
 * "nothing" for everyone.
 */
export function planFanout(input: FanoutInput): FanoutPlan {
  const actions: FanoutAction[] = [];
  const variants = input.variants.map((v) => ("variant" in v ? v.variant : v));
  for (const variant of variants) actions.push(planVariant(variant, input));

  // A warning stops nothing: its variant runs as written.
  const problems = (input.problems ?? []).filter((p) => p.severity !== "warning");
  const problemVariants = new Map<string, VariantProblem[]>();
  for (const p of problems)
    if (p.variant) problemVariants.set(p.variant, [...(problemVariants.get(p.variant) ?? []), p]);
  const active = new Set(variants.map((v) => v.metadata.name));
  for (const [name, list] of problemVariants) {
    if (active.has(name)) continue;
    actions.push({
      kind: "skip",
      why: "problem",
      variant: name,
      reason: list.map((p) => p.message).join("; "),
      problems: list,
    });
  }

  const unattributed = problems.some((p) => !p.variant);
  for (const m of input.managed ?? []) {
    const owner = variants.find((v) => v.metadata.name === m.variant);
    if (owner && owner.spec.downstream.repo === m.repo && owner.spec.downstream.package === m.package)
      continue;
    // A variant gone, or moved to another downstream: the old downstream goes by the policy it recorded.
    actions.push(planRemoval(m, unattributed || problemVariants.has(m.variant)));
  }
  return { actions };
}

function planRemoval(m: ManagedPackage, unsure: boolean): FanoutAction {
  const downstream = { repo: m.repo, package: m.package };
  const branch = formatVariantBranch({ package: m.package, variant: m.variant });
  if (unsure) {
    return {
      kind: "skip",
      why: "problem",
      variant: m.variant,
      downstream,
      reason: `variant ${m.variant} is not declared, but the variant files have problems; nothing is deleted until they are fixed`,
    };
  }
  if (m.unpublished) return planUnpublishedRemoval(m, downstream, branch);
  const wanted = m.deletionPolicy === "orphan" ? "orphan" : "deletion";
  const close =
    m.pullRequest && m.pullRequest.kind !== wanted
      ? [{ number: m.pullRequest.number, reason: `variant ${m.variant} was removed` }]
      : undefined;
  if (m.pullRequest?.kind === wanted) {
    return {
      kind: "nothing",
      variant: m.variant,
      downstream,
      pullRequest: m.pullRequest.number,
      reason: `variant ${m.variant} was removed; pull request #${m.pullRequest.number} proposes ${wanted === "orphan" ? "releasing" : "deleting"} the package`,
    };
  }
  return wanted === "orphan"
    ? {
        kind: "orphan",
        variant: m.variant,
        downstream,
        branch,
        reason: `variant ${m.variant} was removed and its deletionPolicy is orphan: the package stays, no longer managed`,
        ...(close ? { close } : {}),
      }
    : {
        kind: "deletion-proposal",
        variant: m.variant,
        downstream,
        branch,
        reason: `variant ${m.variant} was removed and its deletionPolicy is delete: propose deleting the package`,
        ...(close ? { close } : {}),
      };
}

/**
 * A downstream never published (only the variant's pull request holds it) whose variant is gone: with
 * deletionPolicy delete the proposal is discarded — closed, its branch deleted —, as Porch deletes its
 * Draft and Proposed revisions; with orphan it stays open, no longer updated, as Porch orphans them.
 */
function planUnpublishedRemoval(m: ManagedPackage, downstream: PackageRef, branch: string): FanoutAction {
  const pr = m.pullRequest;
  if (!pr)
    return {
      kind: "nothing",
      variant: m.variant,
      downstream,
      reason: `variant ${m.variant} was removed; its downstream was never published`,
    };
  if (m.deletionPolicy === "orphan")
    return {
      kind: "nothing",
      variant: m.variant,
      downstream,
      reason: `variant ${m.variant} was removed and its deletionPolicy is orphan: pull request #${pr.number}, never published, stays open and is no longer updated`,
    };
  return {
    kind: "discard",
    variant: m.variant,
    downstream,
    branch,
    pullRequest: pr.number,
    reason: `variant ${m.variant} was removed and its deletionPolicy is delete: pull request #${pr.number}, never published, is closed and its branch deleted`,
  };
}

/** The upstream a variant follows: a git package, or an OCI image or tarball (read as a package source). */
type Followed =
  | { kind: "git"; upstream: GitUpstream }
  | { kind: "source"; upstream: SourceUpstream; src: PackageSource };

/** What planning one variant reads: its name and downstream, the downstream's state, the upstream it follows. */
interface VariantView {
  name: string;
  downstream: PackageRef;
  state: DownstreamPackageState;
  followed: Followed;
  /** What the downstream is on: a published revision for a git upstream, a content digest for the others. */
  locked: string | undefined;
  /** The same, where the downstream exists. */
  deployed: string | undefined;
  /** The upstream in reasons: the package path, or the oci:// or https:// reference. */
  source: string;
}

/** A variant's view with what it targets now, and the update pull request open for it, if any. */
interface Targeted extends VariantView {
  target: PublishedRevision;
  specHash: string;
  openUpdate: OpenPullRequest | undefined;
  /** Pull requests of another kind on the variant's branch: closed, the variant being declared again. */
  close: { number: number; reason: string }[];
}

/** The fields a clone or an update of the variant carries, and the note a rebuild adds to its reason. */
type Proposal = Omit<Extract<FanoutAction, { kind: "clone" }>, "kind" | "reason">;

function planVariant(variant: PackageVariant, input: FanoutInput): FanoutAction {
  const view = viewOf(variant, input);
  const { name, downstream, deployed, followed } = view;
  if (variant.spec.paused)
    return {
      kind: "skip",
      why: "paused",
      variant: name,
      downstream,
      ...(deployed ? { deployed } : {}),
      reason: "the variant is paused",
    };
  const resolved =
    followed.kind === "source"
      ? resolveSource(followed.src, input.sources)
      : resolveUpstream(
          followed.upstream,
          input.upstream[followed.upstream.repo]?.[followed.upstream.package],
        );
  if (!resolved.ok) return withdrawn(view, input, resolved.reason) ?? skipVariant(view, resolved.reason);
  const pr = view.state.pullRequest;
  const t: Targeted = {
    ...view,
    target: resolved.target,
    specHash: variantSpecHash(variant),
    openUpdate: pr?.kind === "update" ? pr : undefined,
    close:
      pr && pr.kind !== "update" ? [{ number: pr.number, reason: `variant ${name} is declared again` }] : [],
  };
  const proposal = proposalOf(t);
  if (!view.state.exists) return planClone(t, proposal);
  return planExisting(t, proposal, variant.spec.adoptionPolicy === "adoptExisting");
}

function viewOf(variant: PackageVariant, input: FanoutInput): VariantView {
  const name = variant.metadata.name;
  const { upstream, downstream } = variant.spec;
  const state: DownstreamPackageState = input.downstream[name] ?? { exists: false };
  const followed: Followed = isSourceUpstream(upstream)
    ? { kind: "source", upstream, src: sourceOf(upstream) }
    : { kind: "git", upstream };
  const locked = followed.kind === "source" ? state.lockedDigest : state.lockedRevision;
  return {
    name,
    downstream,
    state,
    followed,
    locked,
    deployed: state.exists ? locked : undefined,
    source: followed.kind === "source" ? formatSource(followed.src) : followed.upstream.package,
  };
}

/**
 * A variant with nothing to move to whose open pull request proposes a revision the upstream no longer
 * publishes (deleted: its tag gone, and the channel it headed left empty, or the revision the variant pins):
 * skipped, and the pull request closed saying why, since approving it would deploy a revision that is no
 * more. Undefined when the pull request proposes a revision still published (a person may still want it),
 * or when the upstream could not be read (nothing is known to be gone).
 */
function withdrawn(view: VariantView, input: FanoutInput, reason: string): FanoutAction | undefined {
  const pr = view.state.pullRequest;
  if (view.followed.kind !== "git" || pr?.kind !== "update" || pr.targetRevision === undefined)
    return undefined;
  const { repo, package: pkg } = view.followed.upstream;
  const state = input.upstream[repo]?.[pkg];
  if (!state || state.revisions.some((r) => r.revision === pr.targetRevision)) return undefined;
  const gone = `${pkg} ${pr.targetRevision}, which #${pr.number} proposes, is no longer published in ${repo} (deleted)`;
  return {
    ...skipVariant(view, `${gone}; ${reason}`),
    pullRequest: pr.number,
    close: [{ number: pr.number, reason: `${gone}, and there is no revision to move it to: ${reason}` }],
  };
}

function skipVariant(view: VariantView, reason: string): Extract<FanoutAction, { kind: "skip" }> {
  const { name, downstream, deployed } = view;
  return {
    kind: "skip",
    why: "problem",
    variant: name,
    downstream,
    ...(deployed ? { deployed } : {}),
    reason,
  };
}

function proposalOf(t: Targeted): Proposal {
  const { name, downstream, target, openUpdate, close, followed } = t;
  return {
    variant: name,
    upstream:
      followed.kind === "source"
        ? sourcePackageRef(followed.src)
        : { repo: followed.upstream.repo, package: followed.upstream.package },
    downstream,
    branch: formatVariantBranch({ package: downstream.package, variant: name }),
    to: target.revision,
    toCommit: target.commit,
    specHash: t.specHash,
    ...(followed.kind === "source"
      ? { source: { source: declaredSource(followed.upstream), digest: target.commit } }
      : {}),
    ...(openUpdate ? { pullRequest: openUpdate.number } : {}),
    ...(openUpdate?.rebase && !openUpdate.editedByOthers ? { rebase: openUpdate.rebase } : {}),
    ...(close.length ? { close } : {}),
  };
}

/**
 * The reason of a clone or an update proposing `what`: a rebuild of the open pull request on the default
 * branch where it proposes the target already, else `fresh` with the rebuild's note.
 */
function proposalReason(t: Targeted, proposal: Proposal, what: string, fresh: string): string {
  const { openUpdate, target, specHash } = t;
  // Only rebuilt (the pull request proposes the target already), or retargeted and rebuilt at once.
  const refreshOnly = openUpdate?.targetRevision === target.revision && openUpdate.specHash === specHash;
  if (refreshOnly && proposal.rebase)
    return `rebuild #${openUpdate?.number} (${what}) on the default branch: ${proposal.rebase}`;
  const rebaseNote = proposal.rebase
    ? `; rebuild #${openUpdate?.number} on the default branch: ${proposal.rebase}`
    : "";
  return `${fresh}${rebaseNote}`;
}

/**
 * The open update pull request holds the variant where it proposes `what` already (waiting for approval
 * or its conflicts) or carries commits of others; undefined where fan-out should (re)build it.
 */
function waiting(t: Targeted, what: string): FanoutAction | undefined {
  const { name, downstream, deployed, target, openUpdate, close, specHash } = t;
  if (!openUpdate) return undefined;
  const base = {
    kind: "nothing" as const,
    variant: name,
    downstream,
    ...(deployed ? { deployed } : {}),
    target: target.revision,
    pullRequest: openUpdate.number,
    ...(openUpdate.conflicts ? { conflicts: openUpdate.conflicts } : {}),
    ...(close.length ? { close } : {}),
  };
  if (openUpdate.editedByOthers) {
    return {
      ...base,
      held: "edited" as const,
      reason: `pull request #${openUpdate.number} has commits from others, which fan-out does not overwrite; merge or close it`,
    };
  }
  // The rebase policy may rebuild it on the moved default branch; else it proposes the target already.
  if (
    openUpdate.targetRevision === target.revision &&
    openUpdate.specHash === specHash &&
    !openUpdate.rebase
  ) {
    const held = openUpdate.conflicts ? ("conflicts" as const) : ("approval" as const);
    return { ...base, held, reason: `pull request #${openUpdate.number} proposes ${what}` };
  }
  return undefined;
}

/**
 * A pull request for this target that a person closed without merging: not this revision, for this
 * downstream, until a newer one is published (or the variant changes what a re-apply proposed).
 */
function declined(t: Targeted): FanoutAction | undefined {
  const { name, downstream, deployed, target, openUpdate, specHash } = t;
  const d = openUpdate ? undefined : t.state.declined;
  if (!d || d.targetRevision !== target.revision || (d.reapply && d.specHash !== specHash)) return undefined;
  return {
    kind: "skip",
    why: "declined",
    variant: name,
    downstream,
    ...(deployed ? { deployed } : {}),
    target: target.revision,
    pullRequest: d.number,
    reason: `#${d.number} was closed without merging, so ${target.revision} is not proposed again; a newer revision gets a new pull request, and reopening #${d.number} resumes it`,
  };
}

/** A downstream that does not exist yet: cloned, unless a pull request already proposes it or was declined. */
function planClone(t: Targeted, proposal: Proposal): FanoutAction {
  const { downstream, source, target } = t;
  const what = `the clone of ${revisionLabel(target.revision)}`;
  return (
    waiting(t, what) ??
    declined(t) ?? {
      kind: "clone",
      ...proposal,
      reason: proposalReason(
        t,
        proposal,
        what,
        `${downstream.repo}/${downstream.package} does not exist yet: clone ${source} ${revisionLabel(target.revision)}`,
      ),
    }
  );
}

/**
 * A downstream that exists: skipped where another variant manages it, where it may not be adopted or has
 * no lock to update from; nothing where it is at the target; else updated (or adopted), unless a pull
 * request already proposes it or was declined.
 */
function planExisting(t: Targeted, proposal: Proposal, adoptExisting: boolean): FanoutAction {
  const { name, downstream, state, locked, source, target, specHash, openUpdate, close, followed } = t;
  const where = `${downstream.repo}/${downstream.package}`;
  if (state.managedBy !== undefined && state.managedBy !== name) {
    return skipVariant(
      t,
      `${where} is managed by variant ${state.managedBy}; give this variant another downstream package`,
    );
  }
  const adopting = state.managedBy === undefined;
  if (adopting && !adoptExisting) {
    return skipVariant(
      t,
      `${where} exists and was not created by this variant, and adoptionPolicy is adoptNone (Porch's default): set adoptionPolicy: adoptExisting to take it over, or choose another downstream package`,
    );
  }
  const src = followed.kind === "source";
  if (!locked) {
    return skipVariant(
      t,
      `${where} has no upstream lock on ${src ? `a content digest of ${source}` : `a published revision of ${source}`}, so it cannot be updated; clone it from the upstream again`,
    );
  }
  const from = locked;
  if (from === target.revision && state.specHash === specHash && !adopting) {
    const stale = openUpdate
      ? [
          ...close,
          {
            number: openUpdate.number,
            reason: `${downstream.package} is at ${revisionLabel(target.revision)} already`,
          },
        ]
      : close;
    return {
      kind: "nothing",
      variant: name,
      downstream,
      deployed: from,
      target: target.revision,
      reason: `up to date at ${revisionLabel(target.revision)}`,
      ...(stale.length ? { close: stale } : {}),
    };
  }
  const to = revisionLabel(target.revision);
  const what =
    from === target.revision ? `re-applying the variant at ${to}` : `${revisionLabel(from)} → ${to}`;
  const fresh = adopting
    ? `adopt ${downstream.package} (adoptExisting) and bring it to ${to}`
    : from === target.revision
      ? `the variant changed: re-apply it at ${to}`
      : `update ${revisionLabel(from)} → ${to}${src ? ` (${source})` : ""}`;
  return (
    waiting(t, what) ??
    declined(t) ?? { kind: "update", from, ...proposal, reason: proposalReason(t, proposal, what, fresh) }
  );
}

/** How plans and pull requests show a revision: `v3`, or a digest shortened to 12 hex digits. */
export function revisionLabel(revision: string): string {
  return shortDigest(revision);
}

type Resolved = { ok: true; target: PublishedRevision } | { ok: false; reason: string };

/**
 * An OCI or tarball upstream's target: the digest it pins, or the one its tag (its URL's content) resolved
 * to on this run.
 */
function resolveSource(src: PackageSource, index: SourceIndex | undefined): Resolved {
  if (src.digest) return { ok: true, target: { revision: src.digest, commit: src.digest } };
  const found = index?.[sourceKey(src)];
  if (!found) return { ok: false, reason: `${formatSource(src)} was not resolved on this run` };
  if ("problem" in found) return { ok: false, reason: found.problem };
  return { ok: true, target: { revision: found.digest, commit: found.digest } };
}

/** The published revision a git upstream resolves to (by channel, workspace, revision, or the latest), or why none. */
export function resolveUpstream(upstream: GitUpstream, state: UpstreamPackageState | undefined): Resolved {
  if (!state || state.revisions.length === 0) {
    return { ok: false, reason: `${upstream.repo} has no published revision of ${upstream.package}` };
  }
  const published = () => state.revisions.map((r) => r.revision).join(", ");
  const latest = () => latestRevision(state.revisions);
  if (upstream.channel !== undefined) {
    const wanted = state.channelHeads?.[upstream.channel];
    if (!wanted) {
      const known = Object.keys(state.channelHeads ?? {}).join(", ") || "none";
      return {
        ok: false,
        reason: `channel ${upstream.channel} of ${upstream.package} has no head in the catalog (channels: ${known})`,
      };
    }
    return byRevision(upstream, state, wanted, published);
  }
  const ws = upstream.workspaceName;
  if (ws !== undefined) {
    const found =
      state.revisions.find((r) => workspaceOf(r) === ws) ?? (ws === state.branch ? latest() : undefined);
    if (!found) {
      const workspaces = state.revisions.map((r) => `${workspaceOf(r)} (${r.revision})`).join(", ");
      return {
        ok: false,
        reason: `no published revision of ${upstream.package} was made in workspace ${ws} (workspaces: ${workspaces})`,
      };
    }
    if (upstream.revision !== undefined && upstream.revision !== found.revision) {
      return {
        ok: false,
        reason: `workspace ${ws} of ${upstream.package} is published as ${found.revision}, not ${upstream.revision}: give one of revision and workspaceName, or make them agree`,
      };
    }
    return { ok: true, target: found };
  }
  if (upstream.revision === undefined) {
    // where the catalog keeps channels, its default channel's head (OLM's rule); else Porch's latest
    const head = state.defaultChannel !== undefined ? state.channelHeads?.[state.defaultChannel] : undefined;
    if (head !== undefined) return byRevision(upstream, state, head, published);
    const found = latest();
    return found ? { ok: true, target: found } : { ok: false, reason: `${upstream.package} has no revision` };
  }
  return byRevision(upstream, state, upstream.revision, published);
}

function byRevision(
  upstream: GitUpstream,
  state: UpstreamPackageState,
  wanted: string,
  published: () => string,
): Resolved {
  const target = state.revisions.find((r) => r.revision === wanted);
  if (!target) {
    return {
      ok: false,
      reason: `revision ${wanted} of ${upstream.package} is not published (published: ${published()})`,
    };
  }
  return { ok: true, target };
}

/** The workspace a published revision was made in; `v<N>` when its commit does not say, as Porch names it. */
function workspaceOf(r: PublishedRevision): string {
  return r.workspace ?? r.revision;
}

/** The published revision with the highest number. */
function latestRevision(revisions: readonly PublishedRevision[]): PublishedRevision | undefined {
  const n = (r: PublishedRevision) => Number(r.revision.slice(1));
  return revisions.reduce<PublishedRevision | undefined>((a, r) => (a && n(a) >= n(r) ? a : r), undefined);
}

/** The upstream index of one repository from its catalog: revisions, their channels and channel heads. */
export function upstreamFromCatalog(catalog: Catalog): Record<string, UpstreamPackageState> {
  const out: Record<string, UpstreamPackageState> = {};
  for (const pkg of catalog.packages) {
    const channelHeads: Record<string, string> = {};
    for (const c of pkg.channels) {
      const head = findHead(c)?.name;
      if (head) channelHeads[c.name] = head;
    }
    out[pkg.name] = {
      revisions: pkg.revisions.map((r) => ({
        revision: r.revision,
        commit: r.commit,
        channels: pkg.channels.filter((c) => c.entries.some((e) => e.name === r.revision)).map((c) => c.name),
      })),
      channelHeads,
      ...(pkg.defaultChannel !== undefined ? { defaultChannel: pkg.defaultChannel } : {}),
    };
  }
  return out;
}
