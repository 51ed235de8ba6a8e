import type { InstallationPort } from "../../github/port.js";
import { indexRefs } from "../../lifecycle/refs.js";
import { VARIANTS_DIR } from "../../variants/index.js";
import { recordMissingRevisions, recordPublished } from "../catalog/record-publish.js";
import { type JobContext, repoName } from "../context.js";
import type { PublishedEvent } from "../events.js";
import { type MirrorAccess, mirrorRevision, sweepMirror } from "../mirror/index.js";
import type { FanoutContext } from "./context.js";
import { type FanoutReport, reconcileFanout } from "./index.js";

/** A fan-out context from a repository job's context and its installation. */
export function fanoutContextOf(ctx: JobContext, installation: InstallationPort): FanoutContext {
  return {
    installation,
    ...(ctx.installationFor ? { installationFor: ctx.installationFor } : {}),
    renderer: ctx.renderer,
    bot: ctx.bot,
    log: ctx.log,
    runtimes: ctx.operatorRuntimes,
    events: ctx.events,
    ...(ctx.mirror ? { registry: ctx.mirror } : {}),
    ...(ctx.now ? { now: ctx.now } : {}),
    ...(ctx.config.rollout ? { rollout: ctx.config.rollout } : {}),
  };
}

/**
 * published → the revision in the repository's catalog → fan-out of the variants this repository
 * manages (by default, the upstream repository manages its own downstreams), when it has variant files.
 */
export async function fanoutAfterPublish(
  ctx: JobContext,
  installation: InstallationPort,
  event: PublishedEvent,
): Promise<FanoutReport | undefined> {
  await recordPublished(ctx.port, {
    package: event.package,
    revision: event.revision,
    commit: event.commit,
    defaultChannel: ctx.config.channels.default,
    author: ctx.bot.author,
    now: ctx.now?.() ?? new Date(),
  });
  await mirrorOrLog(ctx, () => mirrorRevision(ctx, ctx.mirror as MirrorAccess, event));
  if (!(await hasVariantFiles(ctx))) return undefined;
  return reconcileFanout(fanoutContextOf(ctx, installation), repoName(ctx));
}

/**
 * The sweep's part of fan-out and catalog for one repository: revisions tagged but missing from the
 * catalog recorded, and, when the repository has variant files, its fan-out reconciled.
 */
export async function sweepFanout(
  ctx: JobContext,
  installation: InstallationPort,
): Promise<{ recorded: string[]; fanout?: FanoutReport }> {
  const recorded = await recordMissingRevisions(ctx.port, {
    defaultChannel: ctx.config.channels.default,
    author: ctx.bot.author,
    now: ctx.now?.() ?? new Date(),
  });
  await mirrorOrLog(ctx, () => sweepMirror(ctx, ctx.mirror as MirrorAccess));
  if (!(await hasVariantFiles(ctx))) return { recorded };
  return { recorded, fanout: await reconcileFanout(fanoutContextOf(ctx, installation), repoName(ctx)) };
}

/**
 * The mirror (publish.oci) never stops the catalog or fan-out: a registry that is down or refuses the
 * login is logged with its reason, and the next sweep pushes what is missing.
 */
async function mirrorOrLog(ctx: JobContext, push: () => Promise<unknown>): Promise<void> {
  if (!ctx.mirror || !ctx.config.publish.oci) return;
  try {
    await push();
  } catch (err) {
    ctx.log.error(
      { err, repository: ctx.config.publish.oci.repository },
      "mirroring to the OCI registry failed",
    );
  }
}

/**
 * Whether the repository manages variants (files under `.porchlight/variants/` on its base branch):
 * only then does a run read the whole installation. Removing variants keeps the directory until their
 * deletion proposals are open.
 */
async function hasVariantFiles(ctx: JobContext): Promise<boolean> {
  const base = indexRefs(await ctx.port.listRefs()).branches.get(ctx.baseBranch);
  if (!base) return false;
  return (await ctx.port.readTree(base, VARIANTS_DIR)).tree.size > 0;
}
