import type { Logger } from "pino";
import type { EffectiveLimits } from "../../config/limits.js";
import type { Rollout } from "../../config/rollout-schema.js";
import type { Runtime } from "../../config/schema.js";
import type { InstallationLookup } from "../../github/installation-lookup.js";
import type { InstallationPort } from "../../github/port.js";
import type { BotIdentity } from "../context.js";
import type { RegistryAccess } from "../mirror/index.js";
import type { Outbox } from "../outbox.js";
import type { PackageEngine } from "../package-engine.js";
import type { Renderer } from "../renderer.js";

/**
 * What a fan-out run needs, passed explicitly: the installation (fan-out spans its repositories), the
 * render engine the bot uses, the bot's identity, and the runtimes functions may use.
 */
export interface FanoutContext {
  installation: InstallationPort;
  /** The app's other installations, for downstreams named `owner/name` outside this one (hosted app only). */
  installationFor?: InstallationLookup;
  renderer: Renderer;
  /** Merges and variants' mutations (the app's within its bound); absent: inProcessEngine. */
  engine?: PackageEngine;
  bot: BotIdentity;
  log: Logger;
  /** The runtimes downstream pipelines may use (the operator's; builtin unless opted in). */
  runtimes: readonly Runtime[];
  /** The job's outbox: an auto-published downstream revision's fan-out is queued like any other. */
  outbox: Outbox;
  /**
   * How the bot reaches OCI registries and tarballs for the management repository's upstreams: the
   * credentials the operator allows it (scopedAccess); absent: anonymous.
   */
  registry?: RegistryAccess;
  /** The clock, for catalog times (tests pass a fixed one). */
  now?: () => Date;
  /**
   * The package limits an OCI or tarball upstream is read within before anything is pushed: the
   * operator's, lowered by the management repository's own; absent: the defaults.
   */
  limits?: EffectiveLimits;
  /** The management repository's `rollout:` (its `.github/porchlight.yml`): fan-out in waves. */
  rollout?: Rollout;
}

/** A fan-out step that cannot be done for one variant: shown on the dashboard, the others go on. */
export class FanoutStepError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "FanoutStepError";
  }
}

/** Annotation on a PackageVariant(Set) asking fan-out to publish its update pull requests once checks pass. */
export const AUTO_PUBLISH_ANNOTATION = "porchlight.dev/auto-publish";
/** The label of the dashboard issue, so it is found with one filtered listing. */
export const DASHBOARD_LABEL = "porchlight/dashboard";
/** An automerge step's pull request that did not become mergeable within `automergeTimeout`: left to people. */
export const AUTOMERGE_FAILED_LABEL = "porchlight/automerge-failed";
