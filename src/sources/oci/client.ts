import { createHash } from "node:crypto";
import { isLoopbackHost } from "../../kpt/source-ref.js";
import { readBounded } from "../egress.js";
import { ContentRefused, SourceError } from "../errors.js";
import { MAX_ARCHIVE_BYTES } from "../tar.js";
import { type CredentialLookup, type Credentials, noCredentials } from "./credentials.js";
import { MANIFEST_TYPES } from "./media-types.js";
import { declaredMediaType, parseJsonOr, readJson, registryErrors, tagsPage, tokenAnswer } from "./wire.js";

/**
 * A client of the OCI distribution API (what every registry speaks), on Node's fetch: challenge auth
 * (Bearer tokens from the realm a 401 names, or Basic), manifests, blobs verified against their
 * sha256, monolithic uploads, tag lists. A blob redirected to another host (registries hand blobs to a
 * CDN or object store) is fetched there without our Authorization header; a 429 or 503 is retried
 * after its Retry-After; loopback registries are spoken to over plain HTTP, as Docker does.
 */

export interface RegistryClientOptions {
  credentials?: CredentialLookup;
  fetch?: typeof fetch;
  /** Waits for a Retry-After (injected so tests do not wait). */
  sleep?: (ms: number) => Promise<void>;
  /** How many times a 429/503 is retried (default 3). */
  retries?: number;
  /** The longest Retry-After honoured; longer is an error naming the wait (default 60 s). */
  maxRetryAfterMs?: number;
  /** Force the scheme (default: http for loopback hosts, else https). */
  scheme?: "http" | "https";
}

export class RegistryError extends SourceError {
  constructor(
    message: string,
    readonly status?: number,
    readonly code?: string,
  ) {
    super(message);
    this.name = "RegistryError";
  }
}

export interface Manifest {
  /** The digest of the bytes received (the manifest's identity). */
  digest: string;
  mediaType: string;
  bytes: Buffer;
}

export function sha256Digest(bytes: Buffer): string {
  return `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
}

/** The host the API lives at: Docker Hub's name differs from its API host. */
function apiHost(registry: string): string {
  return registry === "docker.io" || registry === "index.docker.io" ? "registry-1.docker.io" : registry;
}

interface Challenge {
  scheme: string;
  params: Record<string, string>;
}

/** `Bearer realm="…",service="…",scope="…"` → scheme and parameters. */
function parseChallenge(header: string): Challenge {
  const m = /^\s*(\w+)\s*(.*)$/s.exec(header);
  const params: Record<string, string> = {};
  const re = /(\w+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]*))/g;
  for (let p = re.exec(m?.[2] ?? ""); p; p = re.exec(m?.[2] ?? "")) {
    // group 1, the parameter's name, is not optional
    params[p[1]!.toLowerCase()] = (p[2] ?? p[3] ?? "").replace(/\\(.)/g, "$1");
  }
  return { scheme: (m?.[1] ?? "").toLowerCase(), params };
}

/** Retry-After as milliseconds: seconds, or an HTTP date relative to `now`. */
function retryAfterMs(value: string | null, now: number): number {
  if (!value) return 1000;
  const s = Number(value);
  if (Number.isFinite(s)) return Math.max(0, s * 1000);
  const t = Date.parse(value);
  return Number.isFinite(t) ? Math.max(0, t - now) : 1000;
}

function basic(c: Credentials): string {
  return `Basic ${Buffer.from(`${c.username}:${c.password}`).toString("base64")}`;
}

type Access = "pull" | "pull,push";

export class RegistryClient {
  readonly base: string;
  private readonly fetch: typeof fetch;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly credentials: CredentialLookup;
  /** Authorization per repository and access, once a challenge was answered. */
  private readonly auth = new Map<string, string>();

  constructor(
    readonly registry: string,
    private readonly opts: RegistryClientOptions = {},
  ) {
    const scheme = opts.scheme ?? (isLoopbackHost(registry) ? "http" : "https");
    this.base = `${scheme}://${apiHost(registry)}`;
    this.fetch = opts.fetch ?? fetch;
    this.sleep = opts.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
    this.credentials = opts.credentials ?? noCredentials;
  }

  /** Docker Hub's official images live under `library/` (`docker.io/nginx` is `library/nginx`). */
  private path(repository: string): string {
    return this.base === "https://registry-1.docker.io" && !repository.includes("/")
      ? `library/${repository}`
      : repository;
  }

  /** The manifest at a tag or digest; a digest reference is verified against the bytes. */
  async manifest(repository: string, reference: string): Promise<Manifest> {
    const res = await this.send(repository, "pull", `/v2/${this.path(repository)}/manifests/${reference}`, {
      headers: { accept: MANIFEST_TYPES.join(", ") },
    });
    await this.expect(res, [200], `manifest ${repository}:${reference}`);
    const bytes = await this.body(res, 4 * 1024 * 1024, `manifest ${repository}:${reference}`);
    const digest = sha256Digest(bytes);
    if (reference.startsWith("sha256:") && digest !== reference) {
      throw new RegistryError(
        `${this.registry}/${repository}@${reference}: the registry sent a manifest whose sha256 is ${digest}; refusing it`,
      );
    }
    let mediaType = res.headers.get("content-type")?.split(";")[0]?.trim() ?? "";
    const declared = declaredMediaType.safeParse(parseJsonOr(bytes.toString("utf8")));
    if (!declared.success) {
      throw new RegistryError(
        `${this.registry}/${repository}:${reference}: the manifest is not a JSON object`,
      );
    }
    if (declared.data.mediaType) mediaType = declared.data.mediaType;
    return { digest, mediaType, bytes };
  }

  /** The digest a tag points to now, from one HEAD request, or undefined when the tag does not exist. */
  async digestOf(repository: string, reference: string): Promise<string | undefined> {
    const res = await this.send(repository, "pull", `/v2/${this.path(repository)}/manifests/${reference}`, {
      method: "HEAD",
      headers: { accept: MANIFEST_TYPES.join(", ") },
    });
    if (res.status === 404) return undefined;
    await this.expect(res, [200], `manifest ${repository}:${reference}`);
    const digest = res.headers.get("docker-content-digest");
    if (digest) return digest;
    return (await this.manifest(repository, reference)).digest;
  }

  /** A blob's bytes, refused unless they hash to `digest`. */
  async blob(repository: string, digest: string, maxBytes = MAX_ARCHIVE_BYTES): Promise<Buffer> {
    if (!/^sha256:[0-9a-f]{64}$/.test(digest)) {
      throw new RegistryError(
        `${this.registry}/${repository}: blob digest "${digest}" is not sha256:<64 hex>; porchlight verifies sha256 digests only`,
      );
    }
    const res = await this.send(repository, "pull", `/v2/${this.path(repository)}/blobs/${digest}`, {});
    await this.expect(res, [200], `blob ${digest} of ${repository}`);
    const bytes = await this.body(res, maxBytes, `blob ${digest} of ${repository}`);
    const got = sha256Digest(bytes);
    if (got !== digest) {
      throw new RegistryError(
        `${this.registry}/${repository}: blob ${digest} arrived with sha256 ${got}; refusing it (a corrupt registry, proxy or download)`,
      );
    }
    return bytes;
  }

  async hasBlob(repository: string, digest: string): Promise<boolean> {
    const res = await this.send(repository, "pull,push", `/v2/${this.path(repository)}/blobs/${digest}`, {
      method: "HEAD",
    });
    if (res.status === 404) return false;
    await this.expect(res, [200], `blob ${digest} of ${repository}`);
    return true;
  }

  /**
   * Uploads a blob unless the repository has it (one POST, one PUT); returns its digest. With `mountFrom`
   * (another repository of this registry), the POST asks to mount the blob from there: `201 Created`
   * means mounted, nothing uploaded; `202 Accepted` means the registry declined (it lacks the blob there,
   * or does not mount) and opened an upload, which goes on as without it.
   */
  async pushBlob(repository: string, bytes: Buffer, mountFrom?: string): Promise<string> {
    const digest = sha256Digest(bytes);
    if (await this.hasBlob(repository, digest)) return digest;
    const mount =
      mountFrom && mountFrom !== repository
        ? `?mount=${encodeURIComponent(digest)}&from=${encodeURIComponent(this.path(mountFrom))}`
        : "";
    const post = (query: string) =>
      this.send(repository, "pull,push", `/v2/${this.path(repository)}/blobs/uploads/${query}`, {
        method: "POST",
        headers: { "content-length": "0" },
      });
    let start = await post(mount);
    if (mount && start.status === 201) {
      await start.body?.cancel();
      return digest;
    }
    if (mount && start.status !== 202) {
      // Refused (no pull access to the other repository, say): upload as without it.
      await start.body?.cancel();
      start = await post("");
    }
    await this.expect(start, [202], `upload to ${repository}`);
    const location = start.headers.get("location");
    if (!location)
      throw new RegistryError(`${this.registry}/${repository}: the upload answered without a Location`);
    const url = new URL(location, this.base);
    url.searchParams.set("digest", digest);
    const put = await this.send(repository, "pull,push", url.toString(), {
      method: "PUT",
      headers: { "content-type": "application/octet-stream", "content-length": String(bytes.length) },
      body: bytes,
    });
    await this.expect(put, [201], `upload of ${digest} to ${repository}`);
    return digest;
  }

  /** Puts a manifest under a tag (or its digest); returns the digest. */
  async pushManifest(
    repository: string,
    reference: string,
    bytes: Buffer,
    mediaType: string,
  ): Promise<string> {
    const res = await this.send(
      repository,
      "pull,push",
      `/v2/${this.path(repository)}/manifests/${reference}`,
      {
        method: "PUT",
        headers: { "content-type": mediaType },
        body: bytes,
      },
    );
    await this.expect(res, [201], `manifest ${repository}:${reference}`);
    return sha256Digest(bytes);
  }

  /** Every tag of a repository, following the `Link` pages. */
  async tags(repository: string): Promise<string[]> {
    const out: string[] = [];
    let path: string | undefined = `/v2/${this.path(repository)}/tags/list`;
    for (let page = 0; path && page < 100; page++) {
      const res = await this.send(repository, "pull", path, {});
      if (res.status === 404) return out;
      await this.expect(res, [200], `tags of ${repository}`);
      const text = (await this.body(res, 4 * 1024 * 1024, `tags of ${repository}`)).toString();
      const body = readJson(tagsPage, text, `${this.registry}/${repository}: the tag list`);
      out.push(...(body.tags ?? []));
      path = /<([^>]+)>;\s*rel="?next"?/.exec(res.headers.get("link") ?? "")?.[1];
    }
    return out;
  }

  /**
   * One request with auth, retries and redirects: the cached Authorization for the repository and
   * access, a challenge answered once, 429/503 retried after Retry-After, a redirect to another host
   * followed without Authorization.
   */
  private async send(
    repository: string,
    access: Access,
    pathOrUrl: string,
    init: RequestInit,
  ): Promise<Response> {
    const url = pathOrUrl.startsWith("/") ? `${this.base}${pathOrUrl}` : pathOrUrl;
    const key = `${repository}|${access}`;
    let challenged = false;
    const retries = this.opts.retries ?? 3;
    for (let attempt = 0; ; attempt++) {
      const headers = new Headers(init.headers);
      const authorization = this.auth.get(key);
      if (authorization) headers.set("authorization", authorization);
      const res = await this.fetchFollowing(url, { ...init, headers });
      if (res.status === 401 && !challenged) {
        challenged = true;
        await res.body?.cancel();
        await this.answerChallenge(res.headers.get("www-authenticate"), repository, access, key);
        attempt--;
        continue;
      }
      if ((res.status === 429 || res.status === 503) && attempt < retries) {
        const wait = retryAfterMs(res.headers.get("retry-after"), Date.now());
        const max = this.opts.maxRetryAfterMs ?? 60_000;
        await res.body?.cancel();
        if (wait > max) {
          throw new RegistryError(
            `${this.registry}: too many requests; the registry asks to wait ${Math.ceil(wait / 1000)} s, more than the ${max / 1000} s porchlight waits. Try again later`,
            res.status,
          );
        }
        await this.sleep(wait);
        continue;
      }
      return res;
    }
  }

  /** Follows redirects by hand: Authorization goes only to the origin it was issued for. */
  private async fetchFollowing(url: string, init: RequestInit): Promise<Response> {
    let current = new URL(url);
    const origin = current.origin;
    let req = init;
    for (let hop = 0; hop < 10; hop++) {
      let res: Response;
      try {
        res = await this.fetch(current, { ...req, redirect: "manual" });
      } catch (err) {
        const why = (err as { cause?: { message?: string } }).cause?.message ?? (err as Error).message;
        throw new RegistryError(`cannot reach registry ${this.registry} at ${current.origin}: ${why}`);
      }
      const location = res.headers.get("location");
      if (![301, 302, 303, 307, 308].includes(res.status) || !location) return res;
      await res.body?.cancel();
      current = new URL(location, current);
      if (current.origin !== origin) {
        const headers = new Headers(req.headers);
        headers.delete("authorization");
        req = { ...req, headers };
      }
      if (res.status === 303) req = { ...req, method: "GET", body: undefined };
    }
    throw new RegistryError(`${this.registry}: more than 10 redirects for ${url}`);
  }

  private async answerChallenge(header: string | null, repository: string, access: Access, key: string) {
    const creds = await this.credentials(this.registry);
    if (!header) throw this.denied(repository, creds, "the registry answered 401 without a challenge");
    const { scheme, params } = parseChallenge(header);
    if (scheme === "basic") {
      if (!creds) throw this.denied(repository, creds, "the registry asks for a login");
      this.auth.set(key, basic(creds));
      return;
    }
    if (scheme !== "bearer" || !params.realm) {
      throw this.denied(repository, creds, `unsupported challenge "${header}"`);
    }
    const realm = new URL(params.realm);
    if (params.service) realm.searchParams.set("service", params.service);
    realm.searchParams.set("scope", params.scope ?? `repository:${repository}:${access}`);
    let res: Response;
    try {
      res = await this.fetch(realm, { headers: creds ? { authorization: basic(creds) } : {} });
    } catch (err) {
      throw new RegistryError(
        `cannot reach the token service ${realm.origin} of ${this.registry}: ${(err as Error).message}`,
      );
    }
    if (!res.ok) {
      await res.body?.cancel();
      throw this.denied(repository, creds, `the token service ${realm.origin} answered ${res.status}`);
    }
    // an answer that is not JSON holds no token
    const answer = tokenAnswer.safeParse(await res.json().catch(() => ({})));
    if (!answer.success) {
      const issue = answer.error.issues[0];
      const what = `${issue?.path.join(".") || "its answer"}: ${issue?.message ?? "not an object"}`;
      throw this.denied(repository, creds, `the token service ${realm.origin} sent no token (${what})`);
    }
    const token = answer.data.token ?? answer.data.access_token;
    if (!token) throw this.denied(repository, creds, `the token service ${realm.origin} sent no token`);
    this.auth.set(key, `Bearer ${token}`);
  }

  private denied(repository: string, creds: Credentials | undefined, why: string): RegistryError {
    const hint = creds
      ? `the credentials for ${this.registry} were refused; log in again (docker login ${this.registry}) or check PORCHLIGHT_OCI_USERNAME/PASSWORD`
      : `no credentials for ${this.registry}: run docker login ${this.registry}, or set PORCHLIGHT_OCI_REGISTRY, PORCHLIGHT_OCI_USERNAME and PORCHLIGHT_OCI_PASSWORD`;
    return new RegistryError(`${this.registry}/${repository}: access denied (${why}); ${hint}`, 401);
  }

  /** Refuses an unexpected status with the registry's own error code and message. */
  private async expect(res: Response, ok: number[], what: string): Promise<void> {
    if (ok.includes(res.status)) return;
    const text = res.status === 401 || res.status === 403 ? "" : await res.text().catch(() => "");
    let code: string | undefined;
    // only a registry's own error (the distribution spec's `errors`) is shown: the body of whatever else
    // answered is not echoed to the repository's users (it may be a service they must not read)
    let message = "";
    const e = registryErrors.safeParse(parseJsonOr(text)).data?.errors?.[0];
    if (e) {
      code = e.code;
      message = `${e.code ?? ""}${e.message ? `: ${e.message}` : ""}`;
    }
    if (res.status === 401 || res.status === 403) {
      throw this.denied(what, await this.credentials(this.registry), `${res.status} for ${what}`);
    }
    const notFound = res.status === 404 ? " not found" : "";
    throw new RegistryError(
      `${this.registry}: ${what}${notFound} (HTTP ${res.status}${message ? `, ${message}` : ""})`,
      res.status,
      code,
    );
  }

  private body(res: Response, max: number, what: string): Promise<Buffer> {
    return readBounded(
      res,
      max,
      (n) =>
        new ContentRefused(
          `${this.registry}: ${what} is ${n} bytes or more, more than the ${max} porchlight reads`,
        ),
    );
  }
}
