import { DEFAULT_LIMITS, effectiveLimits } from "../../config/limits.js";
import { loadRepoConfig } from "../../config/load.js";
import type { RepoConfig } from "../../config/resolve.js";
import type { InstallationPort, InstallationRepository, RepoFiles } from "../../github/port.js";
import { readKptfileFields } from "../../kpt/kptfile.js";
import { indexRefs } from "../../lifecycle/refs.js";
import { isVariantFile, readKptfileFacts, VARIANTS_DIR, variantsMayFollow } from "../../variants/index.js";
import { recordPublished, syncCatalogWithTags } from "../catalog/record-publish.js";
import { type JobContext, repoName } from "../context.js";
import { type MirrorAccess, mirrorRevision, scopedAccess, sweepMirror } from "../mirror/index.js";
import type { PublishedEvent } from "../outbox.js";
import type { FanoutContext } from "./context.js";
import { type FanoutReport, reconcileFanout } from "./index.js";
import { reachManagement } from "./management.js";

/**
 * A fan-out context from a repository job's context and its installation, for the fan-out of the job's own
 * repository (its configuration's rollout). For another repository's, see managementFanoutContext.
 */
export function fanoutContextOf(
  ctx: JobContext,
  installation: InstallationPort,
  config: Pick<RepoConfig, "rollout" | "registries" | "limits"> = ctx.config,
  /** The management repository (`owner/name`): whose registry credentials its upstreams are read with. */
  management: string = repoName(ctx),
): FanoutContext {
  return {
    installation,
    ...(ctx.installationFor ? { installationFor: ctx.installationFor } : {}),
    renderer: ctx.renderer,
    ...(ctx.engine ? { engine: ctx.engine } : {}),
    bot: ctx.bot,
    log: ctx.log,
    runtimes: ctx.operatorRuntimes,
    outbox: ctx.outbox,
    ...(ctx.mirror ? { registry: scopedAccess(ctx.mirror, management, config.registries) } : {}),
    ...(ctx.now ? { now: ctx.now } : {}),
    ...(config.rollout ? { rollout: config.rollout } : {}),
    limits: effectiveLimits(ctx.operatorLimits ?? DEFAULT_LIMITS, config.limits),
  };
}

/**
 * The fan-out context of a management repository a job in another repository reaches (a downstream's
 * `/update`, a reopened or published fan-out proposal): the management repository's own configuration
 * decides its rollout, never the downstream's. Undefined, with a warning, when that configuration cannot
 * be read: a fan-out without its rollout's gates could open every wave at once, so it waits for the
 * management repository's own next run, which reports the problem on its check.
 */
export async function managementFanoutContext(
  ctx: JobContext,
  reached: { installation: InstallationPort; repository: InstallationRepository },
): Promise<FanoutContext | undefined> {
  const { installation, repository } = reached;
  if (repository.fullName.toLowerCase() === repoName(ctx).toLowerCase()) {
    return fanoutContextOf(ctx, installation);
  }
  const loaded = await loadRepoConfig((file) => installation.readFile(file), repository.id);
  if (!loaded.ok) {
    ctx.log.warn(
      { management: repository.fullName, problem: loaded.problems[0]?.message },
      "the management repository's configuration has problems; its fan-out waits for its own run",
    );
    return undefined;
  }
  return fanoutContextOf(ctx, installation, loaded.config, repository.fullName);
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
  const own = (await followedHere(ctx, event))
    ? await reconcileFanout(fanoutContextOf(ctx, installation), repoName(ctx))
    : undefined;
  try {
    await refreshManagement(ctx, event);
  } catch (err) {
    // The management repository's own runs (its next publish, /fanout, the sweep) catch up.
    ctx.log.warn(
      { err, tag: event.tag },
      "fan-out of the management repository after a downstream publish failed",
    );
  }
  return own;
}

/**
 * Whether this repository's own variants may move with the revision just published, decided from git
 * alone before fan-out lists the installation's repositories (a request that grows with the installation,
 * made on every publish otherwise): a variant or variant set of its variant files names the package as
 * its upstream (or a file cannot be read), or the package is itself a downstream a variant manages (the
 * dashboard shows its revision). A publish no variant follows leaves every downstream as it was: the
 * dashboard's and rollout's other moves come with the events that make them and with the sweep.
 */
async function followedHere(ctx: JobContext, event: PublishedEvent): Promise<boolean> {
  const base = indexRefs(await ctx.port.listRefs()).branches.get(ctx.baseBranch);
  if (!base) return false;
  const { tree } = await ctx.port.readTree(base, VARIANTS_DIR);
  if (tree.size === 0) return false;
  const files = [...tree]
    .map(([path, bytes]) => ({ path: `${VARIANTS_DIR}/${path}`, text: bytes.toString("utf8") }))
    .filter((f) => isVariantFile(f.path));
  if (variantsMayFollow(files, { repo: repoName(ctx), package: event.package }, repoName(ctx))) return true;
  const kptfile = await ctx.port.getFile(`${event.package}/Kptfile`, event.commit);
  return kptfile !== undefined && readKptfileFacts(kptfile).managedBy !== undefined;
}

/**
 * A downstream package a variant manages was published (its fan-out proposal approved): the management
 * repository's dashboard shows the downstream's own revision, so its fan-out runs now rather than at the
 * next sweep. The management repository is the one its Kptfile names as upstream (the default), or for
 * an OCI or tarball upstream the one the fan-out pull request's marker names; one without variant files is left alone (its variants are kept elsewhere, which the sweep reaches).
 */
async function refreshManagement(ctx: JobContext, event: PublishedEvent): Promise<void> {
  const kptfile = await ctx.port.getFile(`${event.package}/Kptfile`, event.commit);
  if (!kptfile || !readKptfileFacts(kptfile).managedBy) return;
  const url = readKptfileFields(kptfile).upstreamRepo;
  const m = url !== undefined ? /([^/:]+)\/([^/]+?)(?:\.git)?\/?$/.exec(url) : null;
  // A git upstream's repository, else (an OCI image or a tarball) the one the fan-out proposal named.
  const management = m ? `${m[1]}/${m[2]}` : event.management;
  if (!management || management.toLowerCase() === repoName(ctx).toLowerCase()) return;
  const reached = await reachManagement(ctx, management);
  if (!reached) return;
  const port = reached.installation.repo(reached.repository);
  if (!(await hasVariantFiles(port, reached.repository.defaultBranch))) return;
  const fanout = await managementFanoutContext(ctx, reached);
  if (fanout) await reconcileFanout(fanout, reached.repository.fullName);
}

/**
 * The sweep's part of fan-out and catalog for one repository: revisions tagged but missing from the
 * catalog recorded, those whose tag is gone withdrawn, and, when the repository has variant files, its
 * fan-out reconciled (the followers of a withdrawn revision re-planned).
 */
export async function sweepFanout(
  ctx: JobContext,
  installation: InstallationPort,
): Promise<{ recorded: string[]; withdrawn: string[]; fanout?: FanoutReport }> {
  const { recorded, withdrawn } = await syncCatalogWithTags(ctx.port, {
    defaultChannel: ctx.config.channels.default,
    author: ctx.bot.author,
    now: ctx.now?.() ?? new Date(),
  });
  await mirrorOrLog(ctx, () => sweepMirror(ctx, ctx.mirror as MirrorAccess));
  if (!(await hasVariantFiles(ctx.port, ctx.baseBranch))) return { recorded, withdrawn };
  return {
    recorded,
    withdrawn,
    fanout: await reconcileFanout(fanoutContextOf(ctx, installation), repoName(ctx)),
  };
}

/**
 * The fan-out of this repository's variants, now: checks finished on one of its downstreams (see
 * checks-finished.ts), so an automerge, a rollout's next wave or the dashboard may move. Undefined when
 * the repository manages no variants.
 */
export async function fanoutNow(
  ctx: JobContext,
  installation: InstallationPort,
): Promise<FanoutReport | undefined> {
  if (!(await hasVariantFiles(ctx.port, ctx.baseBranch))) return undefined;
  return reconcileFanout(fanoutContextOf(ctx, installation), repoName(ctx));
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
async function hasVariantFiles(port: RepoFiles, baseBranch: string): Promise<boolean> {
  const base = indexRefs(await port.listRefs()).branches.get(baseBranch);
  if (!base) return false;
  return (await port.readTree(base, VARIANTS_DIR)).tree.size > 0;
}
