import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import type { Readable } from "node:stream";
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib";

/** What Octokit's request hands a `fetch` (@octokit/request's fetch wrapper). */
export interface FetchInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array | null;
  redirect?: "follow" | "manual" | "error";
  signal?: AbortSignal | null;
}

/** A response's headers as fetch's Headers gives them: names in lower case, iterated in order of name. */
class ResponseHeaders {
  private readonly values = new Map<string, string>();

  constructor(raw: readonly string[]) {
    for (let i = 0; i + 1 < raw.length; i += 2) {
      const name = (raw[i] as string).toLowerCase();
      const value = raw[i + 1] as string;
      const had = this.values.get(name);
      this.values.set(name, had === undefined ? value : `${had}, ${value}`);
    }
  }

  get(name: string): string | null {
    return this.values.get(name.toLowerCase()) ?? null;
  }

  *[Symbol.iterator](): IterableIterator<[string, string]> {
    yield* [...this.values].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  }
}

/** What Octokit's request reads of a response: its status, URL, headers and body (read whole). */
export interface FetchResponse {
  status: number;
  statusText: string;
  ok: boolean;
  url: string;
  redirected: boolean;
  headers: ResponseHeaders;
  text(): Promise<string>;
  json(): Promise<unknown>;
  arrayBuffer(): Promise<ArrayBuffer>;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** Statuses whose response has no body. */
const NO_BODY = new Set([101, 204, 205, 304]);
/** Headers that describe a request's body, dropped with it when a redirect turns the request into a GET. */
const BODY_HEADERS = [
  "content-type",
  "content-length",
  "content-encoding",
  "content-language",
  "content-location",
];
/** Credentials fetch does not carry to another origin. */
const CREDENTIALS = ["authorization", "cookie", "proxy-authorization"];

/** A failure to get an answer at all, as fetch reports it: Octokit reads the cause's message. */
const failed = (cause: unknown) => new TypeError("fetch failed", { cause });

/** The body of `res`, decompressed as its content-encoding says. */
function decoded(res: IncomingMessage): Readable {
  const encoding = (res.headers["content-encoding"] ?? "").trim().toLowerCase();
  const decoder =
    encoding === "gzip" || encoding === "x-gzip"
      ? createGunzip()
      : encoding === "deflate"
        ? createInflate()
        : encoding === "br"
          ? createBrotliDecompress()
          : undefined;
  if (!decoder) return res;
  res.on("error", (e) => decoder.destroy(e));
  return res.pipe(decoder);
}

/** Bytes as fetch's text() decodes them: UTF-8, a byte order mark dropped. */
const utf8 = (bytes: Buffer) => bytes.toString("utf8").replace(/^\uFEFF/, "");

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

interface Exchange {
  res: IncomingMessage;
  body: Buffer;
}

/** One request and its whole answer. */
function exchange(
  url: URL,
  method: string,
  headers: Record<string, string>,
  body: Buffer | undefined,
  signal: AbortSignal | undefined,
) {
  const send = url.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise<Exchange>((resolve, reject) => {
    const fail = (e: unknown) => reject(signal?.aborted ? signal.reason : failed(e));
    const req = send(url, { method, headers, ...(signal ? { signal } : {}) }, (res) => {
      if (method === "HEAD" || NO_BODY.has(res.statusCode ?? 0)) {
        res.resume();
        resolve({ res, body: Buffer.alloc(0) });
        return;
      }
      readAll(decoded(res)).then((bytes) => resolve({ res, body: bytes }), fail);
    });
    req.on("error", fail);
    req.end(body);
  });
}

/**
 * The `fetch` the command line's Octokit reaches GitHub with: Node's own HTTP client rather than the
 * global fetch, whose client (undici, with HTTP/2 and its WebAssembly parser) takes a command 60–80 ms
 * of CPU to load — more than the rest of `porchlight rpkg get`. It does what fetch does that Octokit
 * relies on: redirects followed (a 303, and a POST's 301 or 302, become a GET without the body; the
 * credentials are not carried to another origin; 20 at most), a compressed answer decompressed, a
 * request that gets no answer failing as fetch's does (a TypeError whose cause is the socket's error:
 * GitHubError's messages read it), an abort failing with the signal's reason. Connections are kept
 * alive between requests (Node's agents do). The body is read whole before the promise settles, which
 * is all Octokit reads (it never asks for the stream: porchlight sets no `parseSuccessResponseBody`).
 */
export async function httpFetch(input: string | URL, init: FetchInit = {}): Promise<FetchResponse> {
  const signal = init.signal ?? undefined;
  if (signal?.aborted) throw signal.reason;
  let url = new URL(String(input));
  let method = (init.method ?? "GET").toUpperCase();
  let headers: Record<string, string> = Object.fromEntries(
    Object.entries(init.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]),
  );
  headers["accept-encoding"] ??= "gzip, deflate";
  let body = init.body === undefined || init.body === null ? undefined : Buffer.from(init.body);
  // fetch's type of a text body that names none
  if (typeof init.body === "string") headers["content-type"] ??= "text/plain;charset=UTF-8";
  for (let redirects = 0; ; redirects++) {
    if (body !== undefined) headers["content-length"] = String(body.byteLength);
    else if (method === "POST" || method === "PUT") headers["content-length"] = "0";
    const { res, body: bytes } = await exchange(url, method, headers, body, signal);
    const status = res.statusCode ?? 0;
    const location = res.headers.location;
    if (REDIRECTS.has(status) && location !== undefined && init.redirect !== "manual") {
      if (init.redirect === "error") throw failed(new Error("unexpected redirect"));
      if (redirects >= 20) throw failed(new Error("redirect count exceeded"));
      const next = new URL(location, url);
      if (next.origin !== url.origin)
        headers = Object.fromEntries(Object.entries(headers).filter(([k]) => !CREDENTIALS.includes(k)));
      if (status === 303 ? method !== "HEAD" : (status === 301 || status === 302) && method === "POST") {
        method = "GET";
        body = undefined;
        headers = Object.fromEntries(Object.entries(headers).filter(([k]) => !BODY_HEADERS.includes(k)));
      }
      url = next;
      continue;
    }
    return {
      status,
      statusText: res.statusMessage ?? "",
      ok: status >= 200 && status < 300,
      url: url.href,
      redirected: redirects > 0,
      headers: new ResponseHeaders(res.rawHeaders),
      text: async () => utf8(bytes),
      json: async () => JSON.parse(utf8(bytes)) as unknown,
      arrayBuffer: async () => new Uint8Array(bytes).buffer,
    };
  }
}
