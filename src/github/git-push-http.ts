import { exchange, GIT_AGENT, pkt, pktLines, protocolError, sideBandData, v0Refs } from "./git-refs-http.js";

/**
 * git's push over smart HTTP without git (what `git push` asks of `git-receive-pack`, protocol v0 as
 * every push is): the service's advertisement (the remote's refs and what it can do), then one POST of
 * the ref updates, each naming the commit its ref is at now (the server refuses an update whose ref
 * moved since: a compare-and-swap), and the pack of what they need. The answer is the server's report,
 * a line a ref. Which updates to ask and which pack to send is decided by the caller (git-repo/push.ts);
 * anything not understood here fails as git's protocol error, and the caller asks git.
 */

/** The remote's refs and capabilities, from git-receive-pack's advertisement. */
export interface ReceivePackAdvert {
  readonly refs: ReadonlyMap<string, string>;
  readonly capabilities: ReadonlySet<string>;
}

/** One ref update: from `old` to `now` (the all-zero id: a ref made, or deleted). */
export interface RefCommand {
  readonly old: string;
  readonly now: string;
  readonly ref: string;
}

/** What the server did with each ref: updated (null), or refused with its reason. */
export interface ReceivePackReport {
  /** `ok`, or the reason the pack could not be unpacked (then no ref was updated). */
  readonly unpack: string;
  readonly refs: ReadonlyMap<string, string | null>;
}

export const ZERO_ID = "0".repeat(40);

const headersFor = (headers: Record<string, string>) => ({ ...headers, "user-agent": GIT_AGENT });

/** The advertisement of git-receive-pack at `url` (one GET). */
export async function receivePackAdvert(
  url: string,
  headers: Record<string, string>,
): Promise<ReceivePackAdvert> {
  const base = url.replace(/\/+$/, "");
  const advert = await exchange(
    base,
    `${base}/info/refs?service=git-receive-pack`,
    { headers: headersFor(headers) },
    "push",
  );
  const lines = pktLines(advert, base);
  if (lines[0] !== "# service=git-receive-pack\n" || lines[1] !== null)
    throw protocolError(base, "a receive-pack advertisement without its service line");
  const body = lines.slice(2);
  const first = body[0];
  if (first === undefined || first === null || !first.includes("\0") || body.at(-1) !== null)
    throw protocolError(base, "a receive-pack advertisement not understood");
  const capabilities = new Set(first.split("\0")[1]?.replace(/\n$/, "").split(" ").filter(Boolean));
  const refs = new Map<string, string>();
  for (const { sha, ref } of v0Refs(body)) {
    if (!/^[0-9a-f]{40}$/.test(sha)) throw protocolError(base, `a ref advertised as ${sha.slice(0, 80)}`);
    // `.have` lines name objects of the server's alternates, no ref
    if (ref !== ".have") refs.set(ref, sha);
  }
  return { refs, capabilities };
}

/**
 * The updates `commands` sent with `pack` (none where every update deletes), asking for the
 * capabilities `asked` (report-status among them); the server's report.
 */
export async function receivePack(
  url: string,
  headers: Record<string, string>,
  commands: readonly RefCommand[],
  asked: readonly string[],
  pack: Buffer | undefined,
): Promise<ReceivePackReport> {
  const base = url.replace(/\/+$/, "");
  const lines = commands.map((c, i) =>
    pkt(`${c.old} ${c.now} ${c.ref}${i === 0 ? `\0${asked.join(" ")}` : ""}\n`),
  );
  const body = Buffer.concat([Buffer.from(`${lines.join("")}0000`), ...(pack ? [pack] : [])]);
  const answer = await exchange(
    base,
    `${base}/git-receive-pack`,
    {
      method: "POST",
      headers: {
        ...headersFor(headers),
        "content-type": "application/x-git-receive-pack-request",
        accept: "application/x-git-receive-pack-result",
      },
      body,
    },
    "push",
  );
  const report = asked.includes("side-band-64k") ? sideBandData(answer, base, "push") : answer;
  return parseReport(pktLines(report, base), base);
}

/** report-status: `unpack ok` (or its error), then `ok REF` or `ng REF REASON` a ref, then a flush. */
function parseReport(lines: (string | null)[], base: string): ReceivePackReport {
  const [unpackLine, ...rest] = lines;
  if (typeof unpackLine !== "string" || !unpackLine.startsWith("unpack "))
    throw protocolError(base, "a push's report without its unpack status");
  const refs = new Map<string, string | null>();
  for (const line of rest) {
    if (line === null) return { unpack: unpackLine.slice(7).trim(), refs };
    const text = line.replace(/\n$/, "");
    const ok = /^ok (\S+)$/.exec(text);
    const ng = /^ng (\S+) (.*)$/.exec(text);
    if (ok?.[1]) refs.set(ok[1], null);
    else if (ng?.[1]) refs.set(ng[1], ng[2] ?? "");
    else throw protocolError(base, `a push's report line ${JSON.stringify(text.slice(0, 80))}`);
  }
  throw protocolError(base, "a push's report not ended");
}
