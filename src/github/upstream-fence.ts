import { isIP } from "node:net";

/**
 * What git itself is told when it fetches a repository a caller named (an upstream of `rpkg clone`, of a
 * clone through Porch's API, of `pkg get`), whatever the code before it checked: the protocols it may
 * speak (GIT_ALLOW_PROTOCOL, which also covers a plain path as `file` and `TRANSPORT::` helpers by their
 * name, `ext` among them), whether it follows an HTTP redirect (to where no check looked), and the
 * addresses its host name resolves to (curl's resolve list: the addresses the egress policy checked, so a
 * name that resolves elsewhere a moment later — DNS rebinding — is not asked again). A server's fetch
 * keeps to https (and http to an endpoint the operator allows) this way even if a path forgot the policy.
 */
export interface UpstreamFence {
  /** git's protocols allowed, by git's names (`https`, `http`, `ssh`, `git`, `file`). */
  protocols: readonly string[];
  /** Follow an HTTP redirect of the first request (git's default), or none at all. */
  followRedirects: boolean;
  /** `HOST:PORT:ADDRESS[,ADDRESS…]` entries git's curl resolves names by (http.curloptResolve). */
  resolve: readonly string[];
}

/** The fence of a server's fetch: https, http too for an allowed endpoint, no redirect, names pinned. */
export function serverFence(url: URL, addresses: readonly string[]): UpstreamFence {
  const host = url.hostname;
  const named = addresses.length > 0 && isIP(host.replace(/^\[|\]$/g, "")) === 0;
  const port = url.port || (url.protocol === "http:" ? "80" : "443");
  const pinned = addresses.map((a) => (a.includes(":") ? `[${a}]` : a)).join(",");
  return {
    protocols: url.protocol === "http:" ? ["http", "https"] : ["https"],
    followRedirects: false,
    resolve: named ? [`${host}:${port}:${pinned}`] : [],
  };
}

/** The fence of the command line's own fetch (`pkg get` on the user's machine): kpt's protocols, no helper. */
export const LOCAL_FENCE: UpstreamFence = {
  protocols: ["https", "http", "ssh", "git", "file"],
  followRedirects: true,
  resolve: [],
};

/** The fence as git's environment (GIT_ALLOW_PROTOCOL and GIT_CONFIG_* entries). */
export function fenceEnv(fence: UpstreamFence): Record<string, string> {
  const config: [string, string][] = [
    ["http.followRedirects", fence.followRedirects ? "initial" : "false"],
    ...fence.resolve.map((r): [string, string] => ["http.curloptResolve", r]),
  ];
  const env: Record<string, string> = {
    GIT_ALLOW_PROTOCOL: fence.protocols.join(":"),
    GIT_CONFIG_COUNT: String(config.length),
  };
  config.forEach(([key, value], i) => {
    env[`GIT_CONFIG_KEY_${i}`] = key;
    env[`GIT_CONFIG_VALUE_${i}`] = value;
  });
  return env;
}
