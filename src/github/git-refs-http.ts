import type { RefInfo } from "../lifecycle/refs.js";
import { GitCommandError, type GitFailureKind } from "./git-process.js";
import { httpFetch } from "./http-fetch.js";

/**
 * `git ls-remote --heads --tags URL` without git: the refs read in this process over git's smart HTTP
 * (protocol v2's `ls-refs`, one POST; the service's advertisement first only where that is not answered,
 * see lsRefsDirect), through Node's own HTTP client (http-fetch.ts, the connection kept alive for the
 * next request). The command line's
 * listing waited some 0.1–0.25 s on the three processes git starts for it (git, `git remote-http`,
 * `git-remote-http`) before its one request went out. The answer is ls-remote's: every branch and tag
 * in the server's order, an annotated tag followed by its peeled commit as `refs/tags/NAME^{}`. A
 * server that answers protocol v0 (it ignores `Git-Protocol`) sends its refs in the advertisement
 * itself, read from there. A refusal fails as git's does (GitCommandError, with git's words), its kind
 * told by the HTTP status, so callers treat both alike.
 */
export async function lsRemoteHttp(url: string, headers: Record<string, string>): Promise<RefInfo[]> {
  const base = url.replace(/\/+$/, "");
  const direct = await lsRefsDirect(base, headers);
  if (direct) return direct;
  const advert = await exchange(base, `${base}/info/refs?service=git-upload-pack`, {
    headers: v2Headers(headers),
  });
  const lines = pktLines(advert, base);
  // `# service=git-upload-pack` and a flush come first over HTTP
  const start = lines[0]?.startsWith("# service=") ? lines.indexOf(null) + 1 : 0;
  if (lines[start] !== "version 2\n") return headsAndTags(v0Refs(lines.slice(start)));
  return headsAndTags(await lsRefs(base, headers, ["refs/heads/", "refs/tags/"], { peel: true }));
}

/**
 * Protocol v2 over HTTP is stateless: each POST carries its whole command, and the advertisement git
 * asks for first only tells a client that the server speaks v2. So `ls-refs` is asked straight away,
 * one round trip where git makes two. Undefined where the answer is not an `ls-refs` answer (a server
 * that speaks only protocol v0, or wants the advertisement first, or refuses): the caller then asks as
 * git does, whose answer (or refusal) is the one reported.
 */
async function lsRefsDirect(base: string, headers: Record<string, string>): Promise<RefInfo[] | undefined> {
  try {
    return headsAndTags(await lsRefs(base, headers, ["refs/heads/", "refs/tags/"], { peel: true }));
  } catch {
    return undefined;
  }
}

/**
 * Protocol v2's `ls-refs` of the refs under `prefixes` (annotated tags followed by their peeled commit
 * with `peel`), asked without the advertisement. An answer that is not one — `OID NAME[ ATTR…]` lines
 * (SHA-1) and a flush, nothing else: a server that answers v0 or an `ERR` line, another object format —
 * fails as git's protocol error.
 */
export async function lsRefs(
  base: string,
  headers: Record<string, string>,
  prefixes: readonly string[],
  opts: { peel?: boolean } = {},
): Promise<RefInfo[]> {
  const body = [pkt("command=ls-refs\n"), "0001", ...(opts.peel ? [pkt("peel\n")] : [])]
    .concat(
      prefixes.map((p) => pkt(`ref-prefix ${p}\n`)),
      "0000",
    )
    .join("");
  const lines = pktLines(await exchange(base, `${base}/git-upload-pack`, v2Post(headers, body)), base);
  if (lines.at(-1) !== null) throw protocolError(base, "an ls-refs answer not ended");
  for (const line of lines.slice(0, -1))
    if (line === null || !/^[0-9a-f]{40} \S+(?: \S+)*\n?$/.test(line))
      throw protocolError(base, `a ref listed as ${JSON.stringify(line?.slice(0, 80) ?? "a flush")}`);
  return v2Refs(lines);
}

/** What porchlight tells a git server it is (`User-Agent`, and a push's `agent=` capability). */
export const GIT_AGENT = "git/porchlight";

/** Request headers as git sends them for protocol v2. */
function v2Headers(headers: Record<string, string>): Record<string, string> {
  return { ...headers, "git-protocol": "version=2", "user-agent": GIT_AGENT };
}

/** A POST of protocol v2's command `body` to the upload-pack service, with git's headers. */
export function v2Post(headers: Record<string, string>, body: string) {
  return {
    method: "POST",
    headers: {
      ...v2Headers(headers),
      "content-type": "application/x-git-upload-pack-request",
      accept: "application/x-git-upload-pack-result",
    },
    body,
  };
}

/** git's words for an answer it does not understand. */
export function protocolError(base: string, what: string): GitCommandError {
  return new GitCommandError(["fetch"], 128, `fatal: protocol error: ${what} from '${base}/'\n`, "protocol");
}

/**
 * One exchange; an answer other than 200 fails as git says it, its kind told by the status, as a
 * failure of git's `command` (a push's refusal is told apart from a read's: failure-text.ts).
 */
export async function exchange(
  base: string,
  url: string,
  init: { method?: string; headers: Record<string, string>; body?: string | Uint8Array },
  command = "ls-remote",
): Promise<Buffer> {
  let res: Awaited<ReturnType<typeof httpFetch>>;
  try {
    res = await httpFetch(url, init);
  } catch (e) {
    const cause = e instanceof Error && e.cause instanceof Error ? e.cause.message : String(e);
    throw refused(command, `fatal: unable to access '${base}/': ${cause}`, "unreachable");
  }
  const bytes = Buffer.from(await res.arrayBuffer());
  if (res.status === 200) return bytes;
  if (res.status === 401) throw refused(command, `fatal: Authentication failed for '${base}/'`, "auth");
  if (res.status === 404)
    throw refused(
      command,
      `remote: Repository not found.\nfatal: repository '${base}/' not found`,
      "not-found",
    );
  throw refused(
    command,
    `fatal: unable to access '${base}/': The requested URL returned error: ${res.status}`,
    statusKind(res.status),
  );
}

/** The kind of a refusal by any other status than 401 and 404. */
function statusKind(status: number): GitFailureKind {
  if (status === 403) return "forbidden";
  return status >= 500 ? "unreachable" : "other";
}

function refused(command: string, stderr: string, kind: GitFailureKind): GitCommandError {
  return new GitCommandError([command], 128, `${stderr}\n`, kind);
}

/**
 * The data of the side-band packets `answer` holds from its start (1: data, 2: progress, 3: the server's
 * error, failing as git's `command` fails), up to the flush that ends them: a fetch's pack, a push's report.
 */
export function sideBandData(answer: Buffer, base: string, command: string): Buffer {
  const chunks: Buffer[] = [];
  for (let at = 0; at < answer.length; ) {
    const size = Number.parseInt(answer.toString("latin1", at, at + 4), 16);
    if (!Number.isInteger(size) || (size > 0 && size < 4) || at + Math.max(size, 4) > answer.length)
      throw protocolError(base, "bad line length");
    if (size === 0) return Buffer.concat(chunks);
    const band = size > 4 ? answer[at + 4] : undefined;
    const payload = answer.subarray(at + 5, at + size);
    at += size;
    if (band === 1) chunks.push(payload);
    else if (band === 3)
      throw new GitCommandError([command], 128, `remote: ${payload.toString("utf8").trim()}\n`, "other");
    else if (band !== 2) throw protocolError(base, `side-band ${band ?? "(none)"}`);
  }
  throw protocolError(base, "side-band packets not ended");
}

/** `text` as one pkt-line. */
export function pkt(text: string): string {
  return (Buffer.byteLength(text) + 4).toString(16).padStart(4, "0") + text;
}

/** The pkt-lines of `bytes` as text; a flush (or delimiter) packet is null. */
export function pktLines(bytes: Buffer, base: string): (string | null)[] {
  const out: (string | null)[] = [];
  for (let at = 0; at < bytes.length; ) {
    const size = Number.parseInt(bytes.toString("latin1", at, at + 4), 16);
    if (!Number.isInteger(size) || (size > 2 && size < 4) || at + Math.max(size, 4) > bytes.length)
      throw new GitCommandError(
        ["ls-remote"],
        128,
        `fatal: protocol error: bad line length from '${base}/'\n`,
        "protocol",
      );
    if (size <= 2) {
      out.push(null);
      at += 4;
      continue;
    }
    out.push(bytes.toString("utf8", at + 4, at + size));
    at += size;
  }
  return out;
}

/** Protocol v2's `ls-refs` answer: `OID NAME[ peeled:OID][ symref-target:…]`, one a line. */
function v2Refs(lines: (string | null)[]): RefInfo[] {
  return lines.flatMap((line) => {
    if (line === null) return [];
    const [sha = "", ref = "", ...attrs] = line.replace(/\n$/, "").split(" ");
    const peeled = attrs.find((a) => a.startsWith("peeled:"))?.slice("peeled:".length);
    const own = { sha, ref };
    return peeled ? [own, { sha: peeled, ref: `${ref}^{}` }] : [own];
  });
}

/** Protocol v0's advertisement: `OID NAME` a line (the first with capabilities after a NUL). */
export function v0Refs(lines: (string | null)[]): RefInfo[] {
  return lines.flatMap((line) => {
    if (line === null) return [];
    const [sha = "", ref = ""] = line.split("\0")[0]?.replace(/\n$/, "").split(" ") ?? [];
    // an empty repository advertises only its capabilities, on a made-up ref
    return ref === "capabilities^{}" ? [] : [{ sha, ref }];
  });
}

function headsAndTags(refs: RefInfo[]): RefInfo[] {
  return refs.filter((r) => r.ref.startsWith("refs/heads/") || r.ref.startsWith("refs/tags/"));
}
