import { GitHubError } from "../../github/errors.js";
import type { FileTree } from "../../kpt/tree.js";
import {
  type FanoutAction,
  formatVariantPullRequest,
  type LoadedVariant,
  planFanout,
  type VariantProblem,
} from "../../variants/index.js";
import { autoPublish } from "./auto-publish.js";
import { buildClone } from "./clone.js";
import { type FanoutContext, FanoutStepError } from "./context.js";
import { writeDashboard } from "./dashboard.js";
import { proposeRemoval } from "./deletion.js";
import { mapLimit } from "./limit.js";
import { closePullRequests, upsertPullRequest } from "./open-pr.js";
import { pushVariantBranch } from "./push.js";
import { type FanoutState, readFanoutState } from "./read-state.js";
import { withRetarget } from "./retarget.js";
import type { RepoSnapshot } from "./snapshot.js";
import { buildUpdate, type UpstreamSource } from "./update.js";

export { type FanoutContext, FanoutStepError } from "./context.js";

/** Downstream repositories worked on at once. */
const EXECUTE_CONCURRENCY = 4;

export interface FanoutReport {
  management: string;
  /** What each variant's step did, as the dashboard shows it. */
  actions: FanoutAction[];
  /** Pull requests opened or edited, by `repo#number`. */
  pullRequests: { repo: string; number: number; action: "created" | "updated" | "unchanged" }[];
  failures: { variant: string; error: string }[];
  dashboard?: { number: number; action: "created" | "updated" | "unchanged" };
}

/**
 * The fan-out reconciler for one management repository: read the state (variant files, every
 * repository's refs and base files, open fan-out pull requests, upstream tags and catalog) → planFanout →
 * execute each variant's one step (clone, update, removal, auto-publish; writes one after another) →
 * the dashboard. Level-triggered: run again, or after a crash, it finishes what is left; with nothing to
 * do it writes nothing. A failing variant is reported and the others go on; a rate limit that outlasted
 * the client's retries stops the run (the next one resumes).
 */
export async function reconcileFanout(ctx: FanoutContext, management: string): Promise<FanoutReport> {
  const state = await readFanoutState(ctx, management);
  const plan = planFanout({
    variants: state.variants,
    problems: state.problems,
    upstream: state.upstream,
    downstream: state.downstream,
    managed: state.managed,
  });
  const report: FanoutReport = { management, actions: [], pullRequests: [], failures: [] };
  const problems: VariantProblem[] = [...state.problems];
  const upstreamCache = new Map<string, Promise<FileTree>>();
  // Downstream repositories are worked on side by side (git pushes overlap; the client still paces and
  // serializes the installation's REST writes); one repository's steps run one after another.
  const byRepo = new Map<string, number[]>();
  plan.actions.forEach((a, i) => {
    const key = "downstream" in a && a.downstream ? a.downstream.repo : "";
    byRepo.set(key, [...(byRepo.get(key) ?? []), i]);
  });
  const done: FanoutAction[] = new Array(plan.actions.length);
  let stop: unknown;
  await mapLimit([...byRepo.values()], EXECUTE_CONCURRENCY, async (indexes) => {
    for (const i of indexes) {
      if (stop) return;
      const action = plan.actions[i] as FanoutAction;
      try {
        done[i] = await execute(ctx, state, action, report, upstreamCache);
      } catch (e) {
        if (e instanceof GitHubError && e.kind === "rate-limited") {
          stop = e;
          return;
        }
        const error = e instanceof Error ? e.message : String(e);
        if (!(e instanceof FanoutStepError))
          ctx.log.warn({ err: e, variant: action.variant }, "fan-out step failed");
        report.failures.push({ variant: action.variant, error });
        done[i] = {
          kind: "skip",
          why: "problem",
          variant: action.variant,
          ...("downstream" in action && action.downstream ? { downstream: action.downstream } : {}),
          reason: error,
        };
      }
    }
  });
  if (stop) throw stop;
  report.actions.push(...done);
  const declared =
    state.management.tree.size > 0 && state.variants.length + problems.length + state.managed.length > 0;
  if (declared) {
    const owners = new Map([...state.snapshots].map(([name, s]) => [name, s.repository.fullName]));
    report.dashboard = await writeDashboard(state.management, {
      variants: state.variants.map((v) => v.variant),
      actions: report.actions,
      problems,
      owners,
    });
  }
  ctx.log.info(
    {
      management,
      variants: state.variants.length,
      pullRequests: report.pullRequests.length,
      failures: report.failures.length,
    },
    "fan-out reconciled",
  );
  return report;
}

async function execute(
  ctx: FanoutContext,
  state: FanoutState,
  action: FanoutAction,
  report: FanoutReport,
  cache: Map<string, Promise<FileTree>>,
): Promise<FanoutAction> {
  const snapOf = (repo: string) => state.snapshots.get(repo) as RepoSnapshot;
  switch (action.kind) {
    case "clone":
    case "update": {
      const lv = state.variants.find((v) => v.variant.metadata.name === action.variant) as LoadedVariant;
      const snap = snapOf(action.downstream.repo);
      await closePullRequests(snap, action.close);
      const upstream = upstreamSource(snapOf(action.upstream.repo), cache);
      const input = { variant: lv.variant, upstream, downstreamTree: snap.tree };
      const content =
        action.kind === "clone"
          ? await buildClone(ctx, { ...input, action })
          : await buildUpdate(ctx, { ...input, action });
      const from = action.kind === "update" ? action.from : undefined;
      const pushed = await pushVariantBranch(snap, {
        branch: action.branch,
        dir: action.downstream.package,
        tree: content.tree,
        message: commitMessage(action),
        author: ctx.bot.author,
      });
      if (pushed.kind === "nothing") {
        return {
          ...settled(action, from),
          reason: `${action.downstream.package} already holds this content`,
        };
      }
      const text = formatVariantPullRequest({
        kind: action.kind,
        variant: action.variant,
        ...(lv.source.set ? { set: lv.source.set } : {}),
        file: lv.source.file,
        upstream: {
          ...action.upstream,
          ...(lv.variant.spec.upstream.channel ? { channel: lv.variant.spec.upstream.channel } : {}),
        },
        downstream: action.downstream,
        ...(from ? { from } : {}),
        to: action.to,
        toCommit: action.toCommit,
        specHash: action.specHash,
        merged: content.merged,
        conflicts: content.conflicts,
        variantChanges: content.variantChanges,
      });
      const pr = await upsertPullRequest(snap, state.pulls.get(action.variant), {
        branch: action.branch,
        ...text,
        body: withRetarget(text.body, state.retargets.get(action.variant)),
      });
      report.pullRequests.push({ repo: snap.repository.fullName, ...pr });
      const conflicts = content.conflicts.length;
      return {
        ...settled(action, from),
        pullRequest: pr.number,
        ...(conflicts ? { conflicts } : {}),
        // As the planner words it on the next run, so a settled dashboard is not rewritten.
        reason: `pull request #${pr.number} proposes ${
          !from
            ? `the clone of ${action.to}`
            : from === action.to
              ? `re-applying the variant at ${action.to}`
              : `${from} → ${action.to}`
        }`,
      };
    }
    case "deletion-proposal":
    case "orphan": {
      const snap = snapOf(action.downstream.repo);
      await closePullRequests(snap, action.close);
      const pr = await proposeRemoval(snap, action, undefined, ctx.bot.author);
      if (!pr)
        return {
          kind: "nothing",
          variant: action.variant,
          downstream: action.downstream,
          reason: action.reason,
        };
      report.pullRequests.push({ repo: snap.repository.fullName, number: pr.number, action: "created" });
      return {
        kind: "nothing",
        variant: action.variant,
        downstream: action.downstream,
        pullRequest: pr.number,
        reason: action.reason,
      };
    }
    case "nothing": {
      const snap = snapOf(action.downstream.repo);
      await closePullRequests(snap, action.close);
      const pr = state.pulls.get(action.variant);
      const lv = state.variants.find((v) => v.variant.metadata.name === action.variant);
      if (!pr || !lv || action.pullRequest !== pr.number) return action;
      const published = await autoPublish(snap.port, {
        pr,
        variant: lv.variant,
        conflicts: action.conflicts ?? 0,
        ...(ctx.events ? { events: ctx.events } : {}),
      });
      if (published.kind === "published") {
        const { pullRequest: _n, conflicts: _c, ...rest } = action;
        return { ...rest, deployed: action.target, reason: `auto-published as ${published.tag}` };
      }
      return published.kind === "waiting"
        ? { ...action, reason: `${action.reason}; auto-publish waits: ${published.why}` }
        : action;
    }
    case "skip":
      return action;
  }
}

/** The dashboard row of a variant whose step is done: its pull request proposes the target. */
function settled(
  action: Extract<FanoutAction, { kind: "clone" | "update" }>,
  from: string | undefined,
): Extract<FanoutAction, { kind: "nothing" }> {
  return {
    kind: "nothing",
    variant: action.variant,
    downstream: action.downstream,
    ...(from ? { deployed: from } : {}),
    target: action.to,
    reason: "",
  };
}

function commitMessage(action: Extract<FanoutAction, { kind: "clone" | "update" }>): string {
  const up = `${action.upstream.repo}/${action.upstream.package}`;
  return action.kind === "clone"
    ? `Clone ${up} ${action.to} into ${action.downstream.package} (variant ${action.variant})`
    : `Update ${action.downstream.package} from ${action.from} to ${action.to} of ${up} (variant ${action.variant})`;
}

function upstreamSource(snap: RepoSnapshot, cache: Map<string, Promise<FileTree>>): UpstreamSource {
  return {
    url: snap.repository.cloneUrl,
    read(ref, dir) {
      const key = `${snap.repository.fullName}\0${ref}\0${dir}`;
      let tree = cache.get(key);
      if (!tree) {
        tree = snap.port
          .readTree(/^[0-9a-f]{40}$/.test(ref) ? ref : `refs/tags/${ref}`, dir)
          .then((r) => r.tree);
        cache.set(key, tree);
      }
      return tree;
    },
  };
}
