import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { request as httpRequest, type RequestOptions } from "node:http";
import { request as httpsRequest } from "node:https";
import { BlockList, isIP } from "node:net";
import { Readable } from "node:stream";
import { SourceError } from "./errors.js";
import { classifyAddress } from "./special-addresses.js";

/**
 * Where the app may connect on a user's behalf (a variant's tarball or OCI upstream, a mirror registry a
 * repository's configuration names): anywhere public, never the operator's own network — loopback,
 * private, shared (CGNAT), link-local (the cloud metadata address), multicast, documentation and every
 * other special-purpose range (special-addresses.ts) are refused after DNS resolution, a name that
 * resolves to nothing too, at every connection and after every redirect — unless the operator
 * allows them (PORCHLIGHT_EGRESS_ALLOW). A refusal names the address and its kind, never what the
 * address would have answered.
 */

/** A request the egress policy refuses: its message names what was refused and why. */
export class EgressRefused extends SourceError {
  override name = "EgressRefused";
}

/**
 * A location that could not be reached, said in one neutral message whatever happened on the way (no
 * route, a port closed, one open that speaks no TLS, a handshake cut, a timeout): the difference would
 * tell a caller which ports of a host are open. What happened is the `cause`, for the server's log.
 */
export class UpstreamUnreachable extends SourceError {
  override name = "UpstreamUnreachable";

  constructor(location: string, cause: unknown) {
    super(`${location} could not be reached, or it refused the connection; check the address`, { cause });
  }
}

export interface EgressPolicy {
  /** Why `address` (an IP) may not be reached for `host`, or undefined when it may. */
  refusal(address: string, host: string): string | undefined;
  /** Whether the operator allowed `url`'s host and port as such (`127.0.0.1:3000`): no check for it. */
  allowsEndpoint(url: URL): boolean;
  /** The operator's allow-list, as given, for messages. */
  readonly allowed: readonly string[];
  /**
   * The addresses `host` (a name) is judged by, and the only ones it is then reached at: `localhost` and
   * `*.localhost` are loopback (RFC 6761, as curl and browsers resolve them, asking no DNS); any other
   * name is resolved now. Empty when it resolves to nothing: a name with no address checked is refused,
   * never handed to a program that would resolve it on its own.
   */
  resolve(host: string): Promise<string[]>;
}

/** How a policy resolves names: the system's resolver, or (tests) another. */
export interface EgressPolicyOptions {
  /** The addresses a name resolves to (not asked for `localhost` names); empty when none. */
  lookup?: (host: string) => Promise<string[]>;
}

/** The system resolver's addresses for `host`, every family; none when it fails. */
function systemLookup(host: string): Promise<string[]> {
  return new Promise((resolve) =>
    dnsLookup(host, { all: true }, (err, found) => resolve(err ? [] : found.map((a) => a.address))),
  );
}

/** Whether `host` is a `localhost` name (RFC 6761 §6.3: loopback, whatever any resolver says). */
function isLocalhostName(host: string): boolean {
  const h = host.toLowerCase().replace(/\.$/, "");
  return h === "localhost" || h.endsWith(".localhost");
}

/** The loopback addresses a `localhost` name stands for, as curl resolves one. */
const LOCALHOST = ["127.0.0.1", "::1"];

/** `a` or `an`, as a kind of address begins. */
const article = (kind: string) => (/^[aeiou]/i.test(kind) ? "an" : "a");

/**
 * The policy allowing, besides public addresses, what `allow` lists: CIDR ranges (`10.1.0.0/16`,
 * `fd00::/8`), addresses (`127.0.0.1`), host names (`registry.internal`, or `*.corp.example` for its
 * subdomains), whose addresses are then not checked, and endpoints (`127.0.0.1:5000`): one port of a
 * host.
 */
export function egressPolicy(allow: readonly string[], opts: EgressPolicyOptions = {}): EgressPolicy {
  const lookup = opts.lookup ?? systemLookup;
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
    resolve: async (host) => (isLocalhostName(host) ? LOCALHOST : lookup(host)),
    allowsEndpoint(url) {
      const port = url.port || (url.protocol === "https:" ? "443" : "80");
      return endpoints.has(`${url.hostname.toLowerCase()}:${port}`);
    },
    refusal(address, host) {
      if (hostAllowed(host)) return undefined;
      const type = isIP(address) === 4 ? "ipv4" : "ipv6";
      if (ranges.check(address, type)) return undefined;
      const refused = (ip: string, kind: string) =>
        `${host}${host === ip ? "" : ` (${ip})`} is ${article(kind)} ${kind} address, which porchlight does not reach for a repository's sources unless the operator allows it (PORCHLIGHT_EGRESS_ALLOW)`;
      const own = classifyAddress(address);
      if (own.kind === "special") return refused(address, own.what);
      if (own.kind === "public") return undefined;
      // an IPv4 address inside an IPv6 one: judged as that address (the operator's allow-list included)
      if (ranges.check(own.carried, "ipv4")) return undefined;
      const carried = classifyAddress(own.carried);
      if (carried.kind === "special") return refused(own.carried, carried.what);
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

/**
 * A connection's lookup that keeps to `policy`: a name's addresses as the policy resolves them (a
 * `localhost` name is loopback), each judged when the connection is made; a name that resolves to none,
 * or to one refused, is not connected to.
 */
function checkedLookup(policy: EgressPolicy): Lookup {
  return (hostname, options, callback) => {
    const answer = (found: string[]): void => {
      const family = options.family === 4 || options.family === 6 ? options.family : 0;
      const addresses: LookupAddress[] = found
        .map((address) => ({ address, family: isIP(address) }))
        .filter((a) => !family || a.family === family);
      const refused = addresses.map((a) => policy.refusal(a.address, hostname)).find(Boolean);
      const first = addresses[0];
      if (refused || !first) callback(new EgressRefused(refused ?? unresolved(hostname)), "", 0);
      else if (options.all) (callback as (e: null, a: LookupAddress[]) => void)(null, addresses);
      else callback(null, first.address, first.family);
    };
    policy.resolve(hostname).then(answer, (err: NodeJS.ErrnoException) => callback(err, "", 0));
  };
}

/** A refusal of a name that resolves to no address here. */
function unresolved(host: string): string {
  return `${host} resolves to no address here, and porchlight reaches a name only at addresses it has checked; check the host name`;
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
    // the policy's refusal says what it refused; any other failure to connect says nothing of the port
    req.on("error", (err) =>
      reject(
        new TypeError("fetch failed", {
          cause: err instanceof EgressRefused ? err : new UpstreamUnreachable(url.origin, err),
        }),
      ),
    );
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
 * address it resolves to now (policy.resolve); a name that resolves to none is refused — what connects
 * next must not look it up on its own.
 */
export async function judgeHost(policy: EgressPolicy, url: URL): Promise<HostVerdict> {
  if (policy.allowsEndpoint(url)) return { ok: true, addresses: [] };
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const addresses = isIP(host) ? [host] : await policy.resolve(host);
  if (addresses.length === 0) return { ok: false, refusal: unresolved(host) };
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
