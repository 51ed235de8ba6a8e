import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { BlockList, isIP } from "node:net";
import { Agent, fetch as undiciFetch } from "undici";
import { SourceError } from "./errors.js";

/**
 * Where the app may connect on a user's behalf (a variant's tarball or OCI upstream, a mirror registry a
 * repository's configuration names): anywhere public, never the operator's own network — loopback,
 * private, shared (CGNAT), link-local (the cloud metadata address), multicast and reserved addresses are
 * refused after DNS resolution, at every connection and after every redirect — unless the operator
 * allows them (PORCHLIGHT_EGRESS_ALLOW). A refusal names the address and its kind, never what the
 * address would have answered.
 */

/** Address ranges no user-named URL reaches, each with the word a refusal uses for it. */
const REFUSED: readonly [string, number, "ipv4" | "ipv6", string][] = [
  ["0.0.0.0", 8, "ipv4", "unspecified"],
  ["10.0.0.0", 8, "ipv4", "private"],
  ["100.64.0.0", 10, "ipv4", "shared (carrier-grade NAT)"],
  ["127.0.0.0", 8, "ipv4", "loopback"],
  ["169.254.0.0", 16, "ipv4", "link-local (cloud metadata)"],
  ["172.16.0.0", 12, "ipv4", "private"],
  ["192.0.0.0", 24, "ipv4", "reserved"],
  ["192.168.0.0", 16, "ipv4", "private"],
  ["198.18.0.0", 15, "ipv4", "reserved"],
  ["224.0.0.0", 4, "ipv4", "multicast"],
  ["240.0.0.0", 4, "ipv4", "reserved"],
  ["::", 128, "ipv6", "unspecified"],
  ["::1", 128, "ipv6", "loopback"],
  ["fc00::", 7, "ipv6", "private"],
  ["fe80::", 10, "ipv6", "link-local"],
  ["ff00::", 8, "ipv6", "multicast"],
];

const RANGES = REFUSED.map(([net, prefix, type, kind]) => {
  const list = new BlockList();
  list.addSubnet(net, prefix, type);
  return { list, type, kind };
});

export class EgressRefused extends SourceError {
  override name = "EgressRefused";
}

export interface EgressPolicy {
  /** Why `address` (an IP) may not be reached for `host`, or undefined when it may. */
  refusal(address: string, host: string): string | undefined;
  /** Whether the operator allowed `url`'s host and port as such (`127.0.0.1:3000`): no check for it. */
  allowsEndpoint(url: URL): boolean;
  /** The operator's allow-list, as given, for messages. */
  readonly allowed: readonly string[];
}

/** An IPv4 address an IPv6 one carries (`::ffff:a.b.c.d`, NAT64 `64:ff9b::a.b.c.d`), else the address. */
function unwrap(address: string): string {
  const m = /^(?:::ffff:|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (m) return m[1]!;
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (!hex) return address;
  const [hi, lo] = [Number.parseInt(hex[1]!, 16), Number.parseInt(hex[2]!, 16)];
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

/**
 * The policy allowing, besides public addresses, what `allow` lists: CIDR ranges (`10.1.0.0/16`,
 * `fd00::/8`), addresses (`127.0.0.1`), host names (`registry.internal`, or `*.corp.example` for its
 * subdomains), whose addresses are then not checked, and endpoints (`127.0.0.1:5000`): one port of a
 * host.
 */
export function egressPolicy(allow: readonly string[]): EgressPolicy {
  const ranges = new BlockList();
  const hosts: string[] = [];
  const endpoints = new Set<string>();
  for (const raw of allow) {
    const entry = raw.trim().toLowerCase();
    if (!entry) continue;
    // HOST:PORT, [V6]:PORT — one endpoint, not the whole host (the embedded forge, not the app beside it)
    const endpoint = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+):(\d{1,5})$/.exec(entry);
    if (endpoint) {
      endpoints.add(`${endpoint[1]}:${endpoint[2]}`);
      continue;
    }
    const [net, bits] = entry.split("/");
    const type = isIP(net ?? "");
    if (type) {
      const prefix = bits === undefined ? (type === 4 ? 32 : 128) : Number(bits);
      if (!Number.isInteger(prefix) || prefix < 0 || prefix > (type === 4 ? 32 : 128))
        throw new SourceError(
          `PORCHLIGHT_EGRESS_ALLOW: "${raw}" has no valid prefix length; write an address, a CIDR range (10.0.0.0/8) or a host name`,
        );
      ranges.addSubnet(net!, prefix, type === 4 ? "ipv4" : "ipv6");
    } else if (/^(\*\.)?[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/.test(entry)) hosts.push(entry);
    else
      throw new SourceError(
        `PORCHLIGHT_EGRESS_ALLOW: "${raw}" is neither an address, a CIDR range nor a host name`,
      );
  }
  const hostAllowed = (host: string) => {
    const h = host.toLowerCase().replace(/^\[|\]$/g, "");
    return hosts.some((a) => (a.startsWith("*.") ? h.endsWith(a.slice(1)) : h === a));
  };
  return {
    allowed: allow,
    allowsEndpoint(url) {
      const port = url.port || (url.protocol === "https:" ? "443" : "80");
      return endpoints.has(`${url.hostname.toLowerCase()}:${port}`);
    },
    refusal(address, host) {
      if (hostAllowed(host)) return undefined;
      const ip = unwrap(address);
      const type = isIP(ip) === 4 ? "ipv4" : "ipv6";
      if (ranges.check(ip, type)) return undefined;
      const hit = RANGES.find((r) => r.type === type && r.list.check(ip, type));
      return hit
        ? `${host}${host === ip ? "" : ` (${ip})`} is a ${hit.kind} address, which porchlight does not reach for a repository's sources unless the operator allows it (PORCHLIGHT_EGRESS_ALLOW)`
        : undefined;
    },
  };
}

/** The operator's policy: PORCHLIGHT_EGRESS_ALLOW, comma- or space-separated, plus `extra` (the embedded forge). */
export function egressPolicyFromEnv(
  env: Record<string, string | undefined>,
  extra: readonly string[] = [],
): EgressPolicy {
  return egressPolicy([...(env.PORCHLIGHT_EGRESS_ALLOW ?? "").split(/[\s,]+/).filter(Boolean), ...extra]);
}

export interface EgressFetchOptions {
  /** Redirects followed at most (each one checked). */
  maxRedirects?: number;
  /** A request's time limit, its body included. */
  timeoutMs?: number;
}

/**
 * A `fetch` that keeps to `policy`: a host name's addresses are checked when the connection is made
 * (so a name that resolves to a refused address at connect time — DNS rebinding included — is refused),
 * an address in the URL before it, and redirects are followed by hand, each one checked the same way.
 */
export function egressFetch(policy: EgressPolicy, opts: EgressFetchOptions = {}): typeof fetch {
  const maxRedirects = opts.maxRedirects ?? 5;
  const timeoutMs = opts.timeoutMs ?? 60_000;
  const open = new Agent();
  const agent = new Agent({
    connect: {
      lookup(hostname, options, callback) {
        dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
          if (err) return callback(err, "", 0);
          const refused = addresses.map((a) => policy.refusal(a.address, hostname)).find(Boolean);
          if (refused) return callback(new EgressRefused(refused), "", 0);
          if ((options as { all?: boolean }).all)
            return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
          const first = addresses[0]!;
          callback(null, first.address, first.family);
        });
      },
    },
  });
  const checkLiteral = (url: URL) => {
    const host = url.hostname.replace(/^\[|\]$/g, "");
    if (isIP(host)) {
      const refused = policy.refusal(host, host);
      if (refused) throw new EgressRefused(refused);
    }
  };
  const egress = async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    const start = new URL(input instanceof Request ? input.url : String(input));
    const follow = (init.redirect ?? "follow") === "follow";
    const signal = init.signal
      ? AbortSignal.any([init.signal, AbortSignal.timeout(timeoutMs)])
      : AbortSignal.timeout(timeoutMs);
    let url = start;
    let req: RequestInit = init;
    for (let hop = 0; ; hop++) {
      const allowed = policy.allowsEndpoint(url);
      if (!allowed) checkLiteral(url);
      const res = (await undiciFetch(url, {
        ...(req as object),
        redirect: "manual",
        signal,
        dispatcher: allowed ? open : agent,
      } as Parameters<typeof undiciFetch>[1])) as unknown as Response;
      const location = res.headers.get("location");
      if (!follow || ![301, 302, 303, 307, 308].includes(res.status) || !location) return res;
      await res.body?.cancel();
      if (hop >= maxRedirects)
        throw new EgressRefused(`${start.href} redirected more than ${maxRedirects} times; refusing it`);
      url = new URL(location, url);
      if (res.status === 303) req = { ...req, method: "GET", body: null };
    }
  };
  return egress as typeof fetch;
}
