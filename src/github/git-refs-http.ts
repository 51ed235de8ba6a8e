import type { RefInfo } from "../lifecycle/refs.js";
import { GitCommandError } from "./git-process.js";
import { httpFetch } from "./http-fetch.js";

/**
 * `git ls-remote --heads --tags URL` without git: the refs read in this process over git's smart HTTP
 * (protocol v2's `ls-refs`, as git asks it: the service's advertisement, then one POST), through Node's
 * own HTTP client (http-fetch.ts, the connection kept alive for the next request). The command line's
 * listing waited some 0.1–0.25 s on the three processes git starts for it (git, `git remote-http`,
 * `git-remote-http`) before its one request went out. The answer is ls-remote's: every branch and tag
 * in the server's order, an annotated tag followed by its peeled commit as `refs/tags/NAME^{}`. A
 * server that answers protocol v0 (it ignores `Git-Protocol`) sends its refs in the advertisement
 * itself, read from there. A refusal fails as git's does (GitCommandError, with git's words), so
 * callers treat both alike.
 */
export async function lsRemoteHttp(url: string, headers: Record<string, string>): Promise<RefInfo[]> {
  const base = url.replace(/\/+$/, "");
  const common = { ...headers, "git-protocol": "version=2", "user-agent": "git/porchlight" };
  const advert = await exchange(base, `${base}/info/refs?service=git-upload-pack`, { headers: common });
  const lines = pktLines(advert, base);
  // `# service=git-upload-pack` and a flush come first over HTTP
  const start = lines[0]?.startsWith("# service=") ? lines.indexOf(null) + 1 : 0;
  if (lines[start] !== "version 2\n") return headsAndTags(v0Refs(lines.slice(start)));
  const body = [pkt("command=ls-refs\n"), "0001", pkt("peel\n")]
    .concat(
      ["refs/heads/", "refs/tags/"].map((p) => pkt(`ref-prefix ${p}\n`)),
      "0000",
    )
    .join("");
  const answer = await exchange(base, `${base}/git-upload-pack`, {
    method: "POST",
    headers: {
      ...common,
      "content-type": "application/x-git-upload-pack-request",
      accept: "application/x-git-upload-pack-result",
    },
    body,
  });
  return headsAndTags(v2Refs(pktLines(answer, base)));
}

/** One exchange; an answer other than 200 fails as git says it. */
export async function exchange(
  base: string,
  url: string,
  init: { method?: string; headers: Record<string, string>; body?: string },
): Promise<Buffer> {
  let res: Awaited<ReturnType<typeof httpFetch>>;
  try {
    res = await httpFetch(url, init);
  } catch (e) {
    const cause = e instanceof Error && e.cause instanceof Error ? e.cause.message : String(e);
    throw refused(`fatal: unable to access '${base}/': ${cause}`);
  }
  const bytes = Buffer.from(await res.arrayBuffer());
  if (res.status === 200) return bytes;
  if (res.status === 401) throw refused(`fatal: Authentication failed for '${base}/'`);
  if (res.status === 404)
    throw refused(`remote: Repository not found.\nfatal: repository '${base}/' not found`);
  throw refused(`fatal: unable to access '${base}/': The requested URL returned error: ${res.status}`);
}

function refused(stderr: string): GitCommandError {
  return new GitCommandError(["ls-remote"], 128, `${stderr}\n`);
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
function v0Refs(lines: (string | null)[]): RefInfo[] {
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
