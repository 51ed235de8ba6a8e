import { type EgressPolicy, EgressRefused, judgeHost } from "./egress.js";

/**
 * A location a request names — a git repository, an OCI image, a tarball — judged under the egress policy
 * before anything connects to it: what a server fetches on a caller's behalf (a clone or upgrade through
 * Porch's API, `rpkg clone`/`upgrade`) is reached over https only, at an address the policy allows, or at
 * the endpoint the operator configured (the GitHub the server serves, an entry of
 * PORCHLIGHT_EGRESS_ALLOW), over http too there. Nothing else: no local path or `file://` (the server's
 * own disk), no ssh, `git://` or git's `TRANSPORT::ADDRESS` helpers (`ext::` runs a command), no text git
 * would read as an option (`-…`, `--upload-pack=…`), no character that URL parsers and git read
 * differently. The URL to hand on is the one judged (WHATWG's reading: `2130706433`, `0x7f.1` and
 * `[::ffff:127.0.0.1]` are 127.0.0.1 there, and so judged).
 */
export type LocationVerdict =
  | {
      ok: true;
      /** The location as judged: what git is to be given (for an OCI image, its registry's https URL). */
      url: URL;
      /** The addresses checked now (git is pinned to them); empty for an endpoint the operator allows. */
      addresses: string[];
    }
  | { ok: false; refusal: string };

const WHY = "porchlight reaches a repository's sources over https only";
const HOW =
  "name an https:// address (the GitHub this server serves, or a host the operator allows in PORCHLIGHT_EGRESS_ALLOW)";

/** What a location that is no https URL is, in a refusal's words. */
function notHttps(location: string): string {
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(location)?.[1]?.toLowerCase();
  if (scheme === "file") return "a file:// URL (the server's own disk)";
  if (scheme) return `a ${scheme}:// URL`;
  const helper = /^([a-z][a-z0-9+.-]*)::/i.exec(location)?.[1];
  if (helper) return `git's remote-helper transport ${helper}::, which runs a program of the server's`;
  if (/^[^/:@]+@[^/:]+:/.test(location)) return "an ssh address";
  return "a local path (the server's own disk)";
}

/** `location` judged under `policy`, the addresses its host has now resolved (see LocationVerdict). */
export async function judgeLocation(policy: EgressPolicy, location: string): Promise<LocationVerdict> {
  const refused = (why: string): LocationVerdict => ({
    ok: false,
    refusal: `"${location}" is refused by the egress policy: ${why}`,
  });
  if (location.startsWith("-")) return refused(`it starts with "-", which git reads as an option; ${HOW}`);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: these are what is refused
  if (/[\s\x00-\x1f\x7f\\]/.test(location))
    return refused(
      `it holds whitespace, a control character or a backslash, which URL parsers and git read differently; ${HOW}`,
    );
  const oci = /^oci:\/\//i.test(location);
  const text = oci ? `https://${location.slice("oci://".length)}` : location;
  if (!/^https?:\/\/[^/]/i.test(text)) return refused(`it is ${notHttps(location)}: ${WHY}; ${HOW}`);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return refused(`it is not a URL; ${HOW}`);
  }
  // `host.` is `host` to a resolver, but not to curl's list of pinned names: git is given the name as pinned
  if (url.hostname.endsWith(".")) url.hostname = url.hostname.replace(/\.+$/, "");
  if (url.protocol === "http:" && !policy.allowsEndpoint(url))
    return refused(
      `plain http:// is spoken only to an endpoint the operator allows (PORCHLIGHT_EGRESS_ALLOW=${url.hostname}:${url.port || "80"}); use https://`,
    );
  const host = await judgeHost(policy, url);
  if (!host.ok) return refused(host.refusal);
  return { ok: true, url, addresses: host.addresses };
}

/** judgeLocation's verdict, a refusal thrown (EgressRefused, its message prefixed by `what`: the field). */
export async function checkLocation(
  policy: EgressPolicy,
  location: string,
  what: string,
): Promise<Extract<LocationVerdict, { ok: true }>> {
  const verdict = await judgeLocation(policy, location);
  if (!verdict.ok) throw new EgressRefused(`${what}: ${verdict.refusal}`);
  return verdict;
}
