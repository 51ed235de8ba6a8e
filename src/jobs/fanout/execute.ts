import { loadRepoConfig } from "../../config/load.js";
import { durationMs } from "../../config/rollout-schema.js";
import type { MergeMethod } from "../../config/schema.js";
import { parseSource, sourceKind } from "../../kpt/source-ref.js";
import type { FileTree } from "../../kpt/tree.js";
import {
  type FanoutAction,
  formatVariantPullRequest,
  isSourceUpstream,
  type LoadedVariant,
  parseVariantPullRequestBody,
  revisionLabel,
  variantPullRequestLabels,
} from "../../variants/index.js";
import { renderDone, reportRender } from "../render-draft/report.js";
import { admitWithin, fanoutLimits } from "./admit.js";
import { autoPublish } from "./auto-publish.js";
import { buildClone } from "./clone.js";
import { AUTOMERGE_FAILED_LABEL, type FanoutContext, FanoutStepError } from "./context.js";
import { proposeRemoval } from "./deletion.js";
import { isDeploymentRepository } from "./deployment.js";
import { deprecationNote } from "./deprecation-note.js";
import { EDITED_LABEL, parseTakeover, withEditedLine, withTakeover } from "./edited.js";
import { gitUpstream } from "./git-upstream.js";
import type { FanoutReport } from "./index.js";
import { closeExplained, closePullRequests, upsertPullRequest } from "./open-pr.js";
import { type BranchPush, pushVariantBranch } from "./push.js";
import type { FanoutState } from "./read-state.js";
import { withRetarget } from "./retarget.js";
import type { RepoSnapshot } from "./snapshot.js";
import { keepSource } from "./source-store.js";
import { sourceUpstream } from "./source-upstream.js";
import { buildUpdate, type PackageContent, type UpstreamSource } from "./update.js";
import { upgradeStepNote } from "./upgrade-step.js";

type ChangeAction = Extract<FanoutAction, { kind: "clone" | "update" }>;
type RemovalAction = Extract<FanoutAction, { kind: "deletion-proposal" | "orphan" }>;
type SettledAction = Extract<FanoutAction, { kind: "nothing" }>;

/** The rollout's say: whether this variant's open pull request may be automerged now. */
interface RolloutSay {
  automerge: boolean;
  now: Date;
}

/** One variant's step, carried out; returns the dashboard row it leaves. */
export async function execute(
  ctx: FanoutContext,
  state: FanoutState,
  action: FanoutAction,
  report: FanoutReport,
  cache: Map<string, Promise<FileTree>>,
  rollout: RolloutSay = { automerge: false, now: new Date() },
): Promise<FanoutAction> {
  switch (action.kind) {
    case "clone":
    case "update":
      return proposeChange(ctx, state, action, report, cache);
    case "deletion-proposal":
    case "orphan":
      return proposeDeletion(ctx, state, action, report);
    case "discard":
      return discardProposal(state, action, report);
    case "nothing":
      return tendPullRequest(ctx, state, action, report, rollout);
    case "skip":
      // a pull request of a revision deleted since, with nothing to move it to: closed, saying why
      await closeExplained(snapOf(state, action.downstream?.repo ?? ""), action.close);
      return action;
  }
}

function snapOf(state: FanoutState, repo: string): RepoSnapshot {
  return state.snapshots.get(repo) as RepoSnapshot;
}

/**
 * A clone or an update: the downstream package built from the upstream, pushed to the variant's branch
 * (with its render check), and proposed in the variant's pull request.
 */
async function proposeChange(
  ctx: FanoutContext,
  state: FanoutState,
  action: ChangeAction,
  report: FanoutReport,
  cache: Map<string, Promise<FileTree>>,
): Promise<FanoutAction> {
  const lv = state.variants.find((v) => v.variant.metadata.name === action.variant) as LoadedVariant;
  const snap = snapOf(state, action.downstream.repo);
  await closePullRequests(snap, action.close);
  const upstream = action.source
    ? sourceUpstream({ ...action, source: action.source }, snap, ctx.registry, cache, ctx.limits)
    : gitUpstream(
        snapOf(state, action.upstream.repo),
        action,
        cache,
        admitWithin(action.upstream.package, fanoutLimits(ctx)),
      );
  const input = { variant: lv.variant, upstream, downstreamTree: snap.tree };
  const content =
    action.kind === "clone"
      ? await buildClone(ctx, { ...input, action, deployment: await isDeploymentRepository(ctx, snap) })
      : await buildUpdate(ctx, { ...input, action });
  const from = action.kind === "update" ? action.from : undefined;
  await keepFloatingTarball(ctx, snap, action, upstream);
  const pushed = await pushChecked(ctx, snap, action, content);
  if (pushed.kind === "nothing") {
    return {
      ...settled(action, from),
      reason: `${action.downstream.package} already holds this content`,
    };
  }
  const pr = await upsertVariantPullRequest(state, action, lv, content, from);
  report.pullRequests.push({ repo: snap.repository.fullName, ...pr });
  const conflicts = content.conflicts.length;
  return {
    ...settled(action, from),
    pullRequest: pr.number,
    ...(conflicts ? { conflicts } : {}),
    held: conflicts ? "conflicts" : "approval",
    // As the planner words it on the next run, so a settled dashboard is not rewritten.
    reason: `pull request #${pr.number} proposes ${
      !from
        ? `the clone of ${revisionLabel(action.to)}`
        : from === action.to
          ? `re-applying the variant at ${revisionLabel(action.to)}`
          : `${revisionLabel(from)} → ${revisionLabel(action.to)}`
    }`,
  };
}

/**
 * The built package pushed to the variant's branch. A fan-out branch is a draft of the downstream
 * package: its head carries `porchlight/render` as any draft's does. Fan-out rendered it already, so the
 * check says so now (a sweep finds it there and has nothing to do). A head already holding this content
 * without the check is a run that stopped between its push and the check (a replica killed, a failed
 * call): posted now, or the proposal check would write its verdict there first and the next sweep render
 * it again.
 */
async function pushChecked(
  ctx: FanoutContext,
  snap: RepoSnapshot,
  action: ChangeAction,
  content: PackageContent,
): Promise<BranchPush> {
  const pushed = await pushVariantBranch(snap, {
    branch: action.branch,
    dir: action.downstream.package,
    tree: content.tree,
    message: commitMessage(action),
    author: ctx.bot.author,
    ...(action.rebase ? { rebase: true } : {}),
  });
  if (
    pushed.kind === "pushed" ||
    (pushed.kind === "unchanged" && !(await renderDone(snap.port, pushed.sha)))
  ) {
    await reportRender(snap.port, {
      pkg: action.downstream.package,
      sha: pushed.sha,
      findings: content.findings,
      verdict: { kind: "rendered", commit: { kind: "as-is" } },
    });
  }
  return pushed;
}

/**
 * The variant's pull request, opened or brought up to date: its title and body say what the change
 * brings (the upgrade path, a deprecation), and keep the retarget and takeover it carried.
 */
async function upsertVariantPullRequest(
  state: FanoutState,
  action: ChangeAction,
  lv: LoadedVariant,
  content: PackageContent,
  from: string | undefined,
): Promise<{ number: number; action: "created" | "updated" | "unchanged" }> {
  const snap = snapOf(state, action.downstream.repo);
  const step = state.steps.get(action.variant);
  const declared = lv.variant.spec.upstream;
  const channel = step?.channel ?? (isSourceUpstream(declared) ? undefined : declared.channel);
  const text = formatVariantPullRequest({
    kind: action.kind,
    variant: action.variant,
    ...(lv.source.set ? { set: lv.source.set } : {}),
    file: lv.source.file,
    upstream: {
      ...action.upstream,
      // In another installation's repository the upstream is named in full, for `/update` there.
      ...(action.downstream.repo.includes("/")
        ? { repo: snapOf(state, action.upstream.repo).repository.fullName }
        : {}),
      ...(channel ? { channel } : {}),
    },
    downstream: action.downstream,
    ...(from ? { from } : {}),
    to: action.to,
    toCommit: action.toCommit,
    ...(action.source ? { source: action.source, management: state.management.repository.fullName } : {}),
    specHash: action.specHash,
    merged: content.merged,
    conflicts: content.conflicts,
    variantChanges: content.variantChanges,
    ...(content.replacedLocal?.length ? { replacedLocal: content.replacedLocal } : {}),
  });
  return upsertPullRequest(snap, state.pulls.get(action.variant), {
    branch: action.branch,
    ...text,
    draft: content.conflicts.length > 0,
    body: withTakeover(
      withRetarget(
        withNotes(text.body, [
          step && upgradeStepNote(step),
          deprecationNote(state.upstreamRepos.get(action.upstream.repo)?.catalog.catalog, {
            package: action.upstream.package,
            ...(channel ? { channel } : {}),
            ...(from ? { from } : {}),
            to: action.to,
          }),
        ]),
        state.retargets.get(action.variant),
      ),
      parseTakeover(state.pulls.get(action.variant)?.body),
    ),
  });
}

/** A downstream package no variant wants any more (or an orphan): its removal proposed. */
async function proposeDeletion(
  ctx: FanoutContext,
  state: FanoutState,
  action: RemovalAction,
  report: FanoutReport,
): Promise<FanoutAction> {
  const snap = snapOf(state, action.downstream.repo);
  await closePullRequests(snap, action.close);
  const pr = await proposeRemoval(snap, action, undefined, ctx.bot.author);
  if (pr) report.pullRequests.push({ repo: snap.repository.fullName, number: pr.number, action: "created" });
  return {
    kind: "nothing",
    variant: action.variant,
    downstream: action.downstream,
    ...(pr ? { pullRequest: pr.number } : {}),
    reason: action.reason,
  };
}

/** A never-published downstream of a removed variant (deletionPolicy delete): its pull request closed, its branch deleted. */
async function discardProposal(
  state: FanoutState,
  action: Extract<FanoutAction, { kind: "discard" }>,
  report: FanoutReport,
): Promise<FanoutAction> {
  const snap = snapOf(state, action.downstream.repo);
  await closePullRequests(snap, [{ number: action.pullRequest, reason: action.reason }]);
  if (snap.branches.has(action.branch)) await snap.port.deleteBranch(action.branch);
  report.pullRequests.push({ repo: snap.repository.fullName, number: action.pullRequest, action: "closed" });
  return { kind: "nothing", variant: action.variant, downstream: action.downstream, reason: action.reason };
}

/**
 * A variant with nothing to push: its open pull request tended. Labels a run that stopped left
 * missing are added; one edited by others is marked and left alone; otherwise it is auto-published
 * when its variant says so (automerged when the rollout allows, given up on after the timeout).
 */
async function tendPullRequest(
  ctx: FanoutContext,
  state: FanoutState,
  action: SettledAction,
  report: FanoutReport,
  rollout: RolloutSay,
): Promise<FanoutAction> {
  const snap = snapOf(state, action.downstream.repo);
  await closePullRequests(snap, action.close);
  const pr =
    state.pulls.get(action.variant) ??
    state.pulls.get(`${action.downstream.repo}/${action.downstream.package}`);
  if (!pr || action.pullRequest !== pr.number) return action;
  // A run that stopped between opening the pull request and labelling it left this to do.
  const kind = parseVariantPullRequestBody(pr.body)?.kind;
  const missing = kind ? variantPullRequestLabels(kind).filter((l) => !pr.labels.includes(l)) : [];
  if (missing.length) await snap.port.addLabels(pr.number, missing);
  if (action.held === "edited") {
    // Commits by others: fan-out leaves the pull request alone, and says so on it.
    if (!pr.labels.includes(EDITED_LABEL)) await snap.port.addLabels(pr.number, [EDITED_LABEL]);
    const body = withEditedLine(pr.body);
    if (body !== pr.body) await snap.port.updatePull(pr.number, { body });
    return action;
  }
  const lv = state.variants.find((v) => v.variant.metadata.name === action.variant);
  if (!lv) return action;
  // Never again once given up on (labelled for people); the dashboard keeps saying so, unchanged.
  const timeoutText = ctx.rollout?.automergeTimeout ?? "1d";
  const givenUp = `not automerged within ${timeoutText}: labelled ${AUTOMERGE_FAILED_LABEL} and left to people`;
  if (pr.labels.includes(AUTOMERGE_FAILED_LABEL))
    return { ...action, reason: `${action.reason}; ${givenUp}` };
  const automerge = rollout.automerge ? await automergeOf(ctx, snap) : undefined;
  const published = await autoPublish(snap.port, {
    pr,
    variant: lv.variant,
    conflicts: action.conflicts ?? 0,
    ...(automerge ? { automerge } : {}),
    outbox: ctx.outbox,
    // fan-out's repositories of another installation go by `owner/name` (read-state.ts)
    target: action.downstream.repo.includes("/")
      ? { kind: "elsewhere", repository: snap.repository }
      : { kind: "installation", repository: snap.repository },
  });
  if (published.kind === "waiting" && automerge && ctx.rollout && pr.createdAt) {
    const timeout = durationMs(timeoutText);
    if (rollout.now.getTime() - Date.parse(pr.createdAt) >= timeout) {
      await snap.port.addLabels(pr.number, [AUTOMERGE_FAILED_LABEL]);
      ctx.log.info({ pr: pr.number, why: published.why }, givenUp);
      return { ...action, reason: `${action.reason}; ${givenUp}` };
    }
  }
  if (published.kind === "published") {
    report.published.push({ repo: snap.repository.fullName, number: pr.number, tag: published.tag });
    const { pullRequest: _n, conflicts: _c, held: _h, ...rest } = action;
    return { ...rest, deployed: action.target, reason: `auto-published as ${published.tag}` };
  }
  return published.kind === "waiting"
    ? { ...action, reason: `${action.reason}; auto-publish waits: ${published.why}` }
    : action;
}

/**
 * An unpinned tarball's content, kept in the downstream repository before it is proposed: once the URL
 * serves other bytes, this is the original the next update merges against (source-store.ts).
 */
async function keepFloatingTarball(
  ctx: FanoutContext,
  snap: RepoSnapshot,
  action: ChangeAction,
  upstream: UpstreamSource,
): Promise<void> {
  if (!action.source || sourceKind(action.source.source) !== "https") return;
  const src = parseSource(action.source.source, "spec.upstream.tarball");
  if (src.digest) return;
  await keepSource(snap.port, {
    digest: action.source.digest,
    directory: src.directory,
    tree: await upstream.target(),
    source: action.source.source,
    author: ctx.bot.author,
  });
}

/** The dashboard row of a variant whose step is done: its pull request proposes the target. */
function settled(action: ChangeAction, from: string | undefined): SettledAction {
  return {
    kind: "nothing",
    variant: action.variant,
    downstream: action.downstream,
    ...(from ? { deployed: from } : {}),
    target: action.to,
    reason: "",
  };
}

function commitMessage(action: ChangeAction): string {
  const up = action.source?.source ?? `${action.upstream.repo}/${action.upstream.package}`;
  return action.kind === "clone"
    ? `Clone ${up} ${action.to} into ${action.downstream.package} (variant ${action.variant})`
    : `Update ${action.downstream.package} from ${action.from} to ${action.to} of ${up} (variant ${action.variant})`;
}

/** A pull request body with notes after it, each a paragraph; the body as it is when there are none. */
function withNotes(body: string, notes: readonly (string | undefined)[]): string {
  const present = notes.filter((n): n is string => !!n);
  return present.length ? `${body.trimEnd()}\n\n${present.join("\n\n")}\n` : body;
}

/** An automerge with the downstream repository's own merge method (its `.github/porchlight.yml`). */
async function automergeOf(ctx: FanoutContext, snap: RepoSnapshot): Promise<{ method: MergeMethod }> {
  const own = snap.repository.id;
  const loaded = await loadRepoConfig(
    (file) =>
      file.owner === own.owner && file.repo === own.repo
        ? snap.port.getFile(file.path, snap.repository.defaultBranch)
        : ctx.installation.readFile(file),
    own,
  );
  if (!loaded.ok)
    throw new FanoutStepError(
      `cannot automerge: the configuration of ${snap.repository.fullName} has problems (${loaded.problems[0]?.message ?? ""}); fix it, or merge by hand`,
    );
  return { method: loaded.config.mergeMethod };
}
