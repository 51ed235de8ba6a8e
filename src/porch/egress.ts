import { KptError } from "../kpt/errors.js";
import { SourceRefError } from "../kpt/source-ref.js";
import { MergeError } from "../merge/index.js";
import {
  type EgressPolicy,
  EgressRefused,
  egressPolicyFromEnv,
  endpointOf,
  type UpstreamUnreachable,
} from "../sources/egress.js";
import { SourceError } from "../sources/errors.js";
import { PorchError } from "./errors.js";
import { UpstreamError } from "./upstream.js";

/**
 * How an operation reaches an upstream its caller named beyond the repositories it serves (a clone's
 * SOURCE, an upgrade's OCI image or tarball): the egress policy every fetch keeps to, and the environment
 * registry credentials are read from (DOCKER_CONFIG, HOME).
 */
export interface UpstreamAccess {
  egress: EgressPolicy;
  env: NodeJS.ProcessEnv;
  /**
   * Told each upstream that could not be reached, what git met as its `cause`: the caller reads one
   * neutral message (which ports are open is not theirs to learn), the operator's log the whole story.
   */
  report?: ((failure: UpstreamUnreachable) => void) | undefined;
}

/** An operation's environment when it may fetch an upstream: the engine's, and how it reaches one. */
export interface FetchEnv {
  upstreams: UpstreamAccess;
}

/**
 * The egress policy of the engine's fetches, which Porch's API server runs on its callers' behalf: what a
 * clone or an upgrade names is fetched by the machine the engine runs on, so it keeps to the app's one
 * policy (src/sources/egress.ts): PORCHLIGHT_EGRESS_ALLOW in `vars`, and the GitHub the engine serves
 * (GitHub Enterprise, the embedded forge; `apiUrl`), allowed on its one endpoint because it is configured
 * — not because of its address.
 */
export function porchEgress(
  vars: Record<string, string | undefined>,
  apiUrl: string | undefined,
): EgressPolicy {
  return egressPolicyFromEnv(vars, apiUrl ? [endpointOf(apiUrl)] : []);
}

/** The upstream access of an environment `vars` serving the GitHub at `apiUrl`. */
export function upstreamAccess(
  vars: NodeJS.ProcessEnv,
  apiUrl: string | undefined,
  report?: UpstreamAccess["report"],
): UpstreamAccess {
  return { egress: porchEgress(vars, apiUrl), env: vars, report };
}

/**
 * A failure reaching, reading or merging an upstream's package as the engine's: the egress policy's
 * refusal (its hint what the policy allows), and what the upstream answered (unreachable, no such ref, a
 * digest that does not match its pin, a source named wrongly) or held (a Kptfile kpt cannot read, no
 * upstream to upgrade from, a merge refused) as bad requests in their own words. Anything else passes as is.
 */
export function upstreamFailure(e: unknown): unknown {
  if (e instanceof EgressRefused)
    return new PorchError(
      "bad-request",
      e.message,
      "a clone or an upgrade reads its upstream over https from a public address, the GitHub rpkg serves, or a host the operator allows (PORCHLIGHT_EGRESS_ALLOW)",
    );
  if (
    e instanceof UpstreamError ||
    e instanceof SourceError ||
    e instanceof SourceRefError ||
    e instanceof MergeError ||
    e instanceof KptError
  )
    return new PorchError("bad-request", e.message);
  return e;
}

/** `run`, its failures reaching an upstream as the engine's (upstreamFailure). */
export async function withinEgress<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (e) {
    throw upstreamFailure(e);
  }
}
