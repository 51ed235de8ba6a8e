import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { request as httpRequest, type RequestOptions } from "node:http";
import { request as httpsRequest } from "node:https";
import { BlockList, isIP } from "node:net";
import { Readable } from "node:stream";
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
  ["64:ff9b:1::", 48, "ipv6", "local-use NAT64"],
  ["fc00::", 7, "ipv6", "private"],
  ["fe80::", 10, "ipv6", "link-local"],
  ["ff00::", 8, "ipv6", "multicast"],
];

const RANGES = REFUSED.map(([net, prefix, type, kind]) => {
  const list = new BlockList();
  list.addSubnet(net, prefix, type);
  return { list, type, kind };
});

/** A request the egress policy refuses: its message names what was refused and why. */
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

/** An IPv6 address's sixteen bytes (`::` expanded, a dotted IPv4 tail read), or undefined for any other text. */
function ipv6Bytes(address: string): number[] | undefined {
  if (isIP(address) !== 6) return undefined;
  let text = address.toLowerCase().replace(/%.*$/, "");
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = "", tail] = text.split("::");
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const hextets = [...left, ...Array(8 - left.length - right.length).fill("0"), ...right].map((h) =>
    Number.parseInt(h, 16),
  );
  return hextets.flatMap((h) => [h >> 8, h & 255]);
}

const dottedOf = (b: readonly number[]) => b.join(".");

/**
 * The IPv4 addresses an IPv6 address carries, each of which the policy judges as it would the IPv4
 * address itself: IPv4-mapped (`::ffff:a.b.c.d`), IPv4-compatible (`::a.b.c.d`), IPv4-translated
 * (`::ffff:0:a.b.c.d`), NAT64's well-known prefix (`64:ff9b::a.b.c.d`), 6to4 (`2002:AABB:CCDD::/16`)
 * and Teredo (`2001:0::/32`: its server, and its client, stored inverted). Local-use NAT64
 * (`64:ff9b:1::/48`) is refused whole: it reaches the operator's own translator.
 */
function carriedIPv4(address: string): string[] {
  const b = ipv6Bytes(address);
  if (!b) return [];
  const zero = (from: number, to: number) => b.slice(from, to).every((x) => x === 0);
  const last = b.slice(12, 16);
  if (zero(0, 10) && b[10] === 0xff && b[11] === 0xff) return [dottedOf(last)]; // ::ffff:0:0/96, mapped
  if (zero(0, 8) && b[8] === 0xff && b[9] === 0xff && zero(10, 12)) return [dottedOf(last)]; // translated
  if (zero(0, 12) && !zero(12, 15)) return [dottedOf(last)]; // compatible (:: and ::1 are judged as IPv6)
  if (b[0] === 0x00 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b && zero(4, 12))
    return [dottedOf(last)];
  if (b[0] === 0x20 && b[1] === 0x02) return [dottedOf(b.slice(2, 6))]; // 6to4
  if (b[0] === 0x20 && b[1] === 0x01 && zero(2, 4))
    return [dottedOf(b.slice(4, 8)), dottedOf(last.map((x) => x ^ 0xff))]; // Teredo: server, client
  return [];
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
    const [net = "", bits] = entry.split("/");
    const type = isIP(net);
    if (type) {
      const prefix = bits === undefined ? (type === 4 ? 32 : 128) : Number(bits);
      if (!Number.isInteger(prefix) || prefix < 0 || prefix > (type === 4 ? 32 : 128))
        throw new SourceError(
          `PORCHLIGHT_EGRESS_ALLOW: "${raw}" has no valid prefix length; write an address, a CIDR range (10.0.0.0/8) or a host name`,
        );
      ranges.addSubnet(net, prefix, type === 4 ? "ipv4" : "ipv6");
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
      const type = isIP(address) === 4 ? "ipv4" : "ipv6";
      if (ranges.check(address, type)) return undefined;
      const refused = (ip: string, kind: string) =>
        `${host}${host === ip ? "" : ` (${ip})`} is a ${kind} address, which porchlight does not reach for a repository's sources unless the operator allows it (PORCHLIGHT_EGRESS_ALLOW)`;
      const own = RANGES.find((r) => r.type === type && r.list.check(address, type));
      if (own) return refused(address, own.kind);
      // an IPv4 address inside an IPv6 one: judged as that address (the operator's allow-list included)
      for (const ip of carriedIPv4(address)) {
        if (ranges.check(ip, "ipv4")) continue;
        const hit = RANGES.find((r) => r.type === "ipv4" && r.list.check(ip, "ipv4"));
        if (hit) return refused(ip, hit.kind);
      }
      return undefined;
    },
  };
}

/**
 * The allow-list entry for `url`'s endpoint (`HOST:PORT`, the scheme's port when it names none): the GitHub
 * (GitHub Enterprise, the embedded forge) the operator configured, allowed because it is configured — on
 * that one port, whatever its address — and nothing else of its host.
 */
export function endpointOf(url: string | URL): string {
  const u = new URL(url);
  return `${u.hostname}:${u.port || (u.protocol === "http:" ? "80" : "443")}`;
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

type Lookup = NonNullable<RequestOptions["lookup"]>;

/** dns.lookup, refusing a name whose addresses the policy refuses (checked when the connection is made). */
function checkedLookup(policy: EgressPolicy): Lookup {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
      if (err) return callback(err, "", 0);
      const refused = addresses.map((a) => policy.refusal(a.address, hostname)).find(Boolean);
      if (refused) return callback(new EgressRefused(refused), "", 0);
      if (options.all) return (callback as (e: null, a: LookupAddress[]) => void)(null, addresses);
      const first = addresses[0];
      if (!first) return callback(new EgressRefused(`${hostname} has no address`), "", 0);
      callback(null, first.address, first.family);
    });
  };
}

/** A request body as bytes: what the app sends (strings and buffers); anything else is a mistake here. */
function bodyBytes(body: RequestInit["body"]): Buffer | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === "string") return Buffer.from(body);
  if (body instanceof Uint8Array) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  if (body instanceof ArrayBuffer) return Buffer.from(body);
  throw new TypeError("egressFetch sends strings and byte arrays only");
}

/** Statuses whose response has no body, as fetch's Response requires. */
const NO_BODY = new Set([101, 204, 205, 304]);

/** One HTTP exchange, on Node's own client (so that the connection's address can be checked). */
function exchange(
  url: URL,
  init: RequestInit,
  lookup: Lookup | undefined,
  signal: AbortSignal,
): Promise<Response> {
  const body = bodyBytes(init.body);
  const method = (init.method ?? "GET").toUpperCase();
  const send = url.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise<Response>((resolve, reject) => {
    const req = send(
      url,
      {
        method,
        headers: Object.fromEntries(new Headers(init.headers).entries()),
        signal,
        ...(lookup ? { lookup } : {}),
      },
      (res) => {
        const headers = new Headers();
        for (let i = 0; i + 1 < res.rawHeaders.length; i += 2)
          headers.append(res.rawHeaders[i] as string, res.rawHeaders[i + 1] as string);
        const status = res.statusCode ?? 502;
        const empty = method === "HEAD" || NO_BODY.has(status);
        if (empty) res.resume();
        const response = new Response(empty ? null : (Readable.toWeb(res) as ReadableStream), {
          status,
          statusText: res.statusMessage ?? "",
          headers,
        });
        Object.defineProperty(response, "url", { value: url.href });
        resolve(response);
      },
    );
    req.on("error", (err) => reject(new TypeError("fetch failed", { cause: err })));
    req.end(body);
  });
}

/**
 * A `fetch` that keeps to `policy`: a host name's addresses are checked when the connection is made
 * (so a name that resolves to a refused address at connect time — DNS rebinding included — is refused),
 * an address in the URL before it, and redirects are followed by hand, each one checked the same way.
 * Built on Node's http client rather than the global fetch, whose connections cannot be checked.
 */
export function egressFetch(policy: EgressPolicy, opts: EgressFetchOptions = {}): typeof fetch {
  const maxRedirects = opts.maxRedirects ?? 5;
  const timeoutMs = opts.timeoutMs ?? 60_000;
  const lookup = checkedLookup(policy);
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
      const res = await exchange(url, req, allowed ? undefined : lookup, signal);
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

/**
 * A response's body, at most `max` bytes: read as it arrives and abandoned as soon as it passes the limit
 * (a server that sends no length, or a false one, cannot make porchlight hold more). `tooBig` says what
 * was refused, with the number of bytes read so far.
 */
export async function readBounded(
  res: Response,
  max: number,
  tooBig: (read: number) => Error,
): Promise<Buffer> {
  const declared = Number(res.headers.get("content-length") ?? "0");
  if (declared > max) {
    await res.body?.cancel();
    throw tooBig(declared);
  }
  if (!res.body) return Buffer.alloc(0);
  const chunks: Buffer[] = [];
  let read = 0;
  const reader = res.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    read += value.byteLength;
    if (read > max) {
      await reader.cancel();
      throw tooBig(read);
    }
    chunks.push(Buffer.from(value.buffer, value.byteOffset, value.byteLength));
  }
  return Buffer.concat(chunks, read);
}

/**
 * The registry an image reference is pulled from, as docker reads the reference: its first component
 * when that has a `.` or `:` or is `localhost` (`gcr.io/kpt-fn/x`, `127.0.0.1:5000/x`), else Docker Hub.
 */
export function imageRegistry(image: string): URL {
  const first = image.split("/")[0] ?? "";
  const host =
    image.includes("/") && (first.includes(".") || first.includes(":") || first === "localhost")
      ? first
      : "registry-1.docker.io";
  return new URL(`https://${host}/`);
}

/**
 * Why `url`'s host may not be reached under `policy` (its addresses resolved now), or undefined: for
 * what the app does not fetch itself but has another program fetch (a container engine's image pull).
 */
async function egressRefusal(policy: EgressPolicy, url: URL): Promise<string | undefined> {
  const judged = await judgeHost(policy, url);
  return judged.ok ? undefined : judged.refusal;
}

/** What `url`'s host is judged under `policy`: refused, or reachable at the addresses checked now. */
export type HostVerdict =
  | {
      ok: true /** Checked now; empty for an endpoint the operator allows as such (none checked). */;
      addresses: string[];
    }
  | { ok: false; refusal: string };

/**
 * `url`'s host judged under `policy` before any connection: an address in the URL as it is, a name by every
 * address it resolves to now (a name that resolves to none is not refused here: the connection fails).
 */
export async function judgeHost(policy: EgressPolicy, url: URL): Promise<HostVerdict> {
  if (policy.allowsEndpoint(url)) return { ok: true, addresses: [] };
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const addresses = isIP(host)
    ? [host]
    : (
        await new Promise<LookupAddress[]>((resolve) =>
          dnsLookup(host, { all: true }, (err, found) => resolve(err ? [] : found)),
        )
      ).map((a) => a.address);
  const refusal = addresses.map((a) => policy.refusal(a, host)).find(Boolean);
  return refusal ? { ok: false, refusal } : { ok: true, addresses };
}

/** A check of a container function's image: its registry kept to `policy`, else what was refused. */
export function imageEgressCheck(policy: EgressPolicy): (image: string) => Promise<string | undefined> {
  return async (image) => {
    const refused = await egressRefusal(policy, imageRegistry(image));
    return refused && `cannot pull "${image}": ${refused}`;
  };
}
