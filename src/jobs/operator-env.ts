import type { RunOptions } from "../fn/runtime/types.js";
import { attributionEnabled } from "../kpt/attribution.js";
import { type EgressPolicy, egressPolicyFromEnv, imageEgressCheck } from "../sources/egress.js";
import { KptRenderer } from "./kpt-renderer/index.js";
import { RenderJournal } from "./kpt-renderer/render-journal.js";
import { type MirrorAccess, mirrorAccessFromEnv } from "./mirror/index.js";
import type { Renderer } from "./renderer.js";

/** What jobs reach the outside with, as the operator's environment sets it. */
export interface OperatorServices {
  /** The pipeline renderer: kpt's attribution unless KPT_DISABLE_ATTRIBUTION, images the egress policy allows. */
  renderer: Renderer;
  /** Registry and tarball access, within the egress policy. */
  mirror: MirrorAccess;
}

export interface OperatorServicesOptions {
  /** Endpoints reached besides PORCHLIGHT_EGRESS_ALLOW: the GitHub the app serves (GitHub Enterprise, the forge). */
  allow?: readonly string[];
  /** The web address of the GitHub the app serves, for the mirror's source label; else GITHUB_SERVER_URL. */
  serverUrl?: string;
  /** A renderer to use instead (tests, benchmarks): none is built. */
  renderer?: Renderer;
  /** Registry access to use instead: none is built. */
  mirror?: MirrorAccess;
}

/**
 * The renderer and the registry access of the app and of the Action, built in this one place from the
 * environment, both keeping to one egress policy (PORCHLIGHT_EGRESS_ALLOW plus `allow`; read only when
 * something is built, and then once: a bad entry throws here).
 */
export function operatorServicesFromEnv(
  env: NodeJS.ProcessEnv,
  opts: OperatorServicesOptions = {},
): OperatorServices {
  let policy: EgressPolicy | undefined;
  const egress = () => {
    policy ??= egressPolicyFromEnv(env, opts.allow);
    return policy;
  };
  const renderer = opts.renderer ?? kptRendererFromEnv(env, { policy: egress() });
  return { renderer, mirror: opts.mirror ?? mirrorAccessFromEnv(env, egress(), opts.serverUrl) };
}

/**
 * The renderer the operator's environment makes: kpt's attribution unless KPT_DISABLE_ATTRIBUTION, images
 * pulled only where the egress policy (PORCHLIGHT_EGRESS_ALLOW plus `allow`) allows. The app's worker
 * threads build theirs here too (bounded/bounded-worker.ts), with a signal that stops their functions.
 */
export function kptRendererFromEnv(
  env: NodeJS.ProcessEnv,
  opts: {
    allow?: readonly string[];
    policy?: EgressPolicy;
    run?: RunOptions;
    /** Where the renderer journals what it keeps (a restart renders as before); none: memory only. */
    journalDir?: string;
  } = {},
): KptRenderer {
  const policy = opts.policy ?? egressPolicyFromEnv(env, opts.allow);
  return new KptRenderer(
    undefined,
    opts.run,
    attributionEnabled(env),
    undefined,
    undefined,
    imageEgressCheck(policy),
    opts.journalDir === undefined ? undefined : new RenderJournal(opts.journalDir),
  );
}
