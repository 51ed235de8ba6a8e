import { GitCommandError } from "./git-process.js";
import { exchange, lsRefs, pkt, protocolError, sideBandData, v2Post } from "./git-refs-http.js";

/**
 * A branch fetched in this process over git's smart HTTP, protocol v2 (what `git fetch` asks, without
 * git): the branch's commit from `ls-refs`, then one `fetch` naming it as `want` and the commits the
 * cache clone already holds as `have`, answered with a pack of what the clone lacks. A push to a draft
 * fetched with `git fetch` started four processes (git, `git remote-http` twice, index-pack or
 * unpack-objects) and ran a connectivity check over the new objects; here only the pack's writer
 * runs (git-repo.ts). The service's advertisement (the GET git asks first) is not asked: a server
 * that answers the `ls-refs` as protocol v2 has the `fetch` command too. Anything else (a server that
 * answers v0, another object format, an answer not understood) fails here, and git-repo.ts asks git.
 */

/** The commit `ref` (a full ref name) names on the server, or undefined when it has no such ref: one `ls-refs`. */
export async function lsRefHttp(
  url: string,
  headers: Record<string, string>,
  ref: string,
): Promise<string | undefined> {
  return (await lsRefs(url.replace(/\/+$/, ""), headers, [ref])).find((r) => r.ref === ref)?.sha;
}

/**
 * The pack of commits `wants` and what they reach, less what `haves` (commits the clone holds with all
 * they reach) reach: a thin pack (its deltas may name objects the clone holds), `PACK` and its objects.
 */
export async function fetchPackHttp(
  url: string,
  headers: Record<string, string>,
  input: { wants: readonly string[]; haves: readonly string[] },
): Promise<Buffer> {
  const base = url.replace(/\/+$/, "");
  const body = [
    pkt("command=fetch\n"),
    "0001",
    pkt("thin-pack\n"),
    pkt("no-progress\n"),
    pkt("ofs-delta\n"),
    ...input.wants.map((w) => pkt(`want ${w}\n`)),
    ...input.haves.map((h) => pkt(`have ${h}\n`)),
    pkt("done\n"),
    "0000",
  ].join("");
  return packOf(await exchange(base, `${base}/git-upload-pack`, v2Post(headers, body)), base);
}

/**
 * The pack in a v2 `fetch` answer: sections (acknowledgments, shallow-info, …) each ended by a
 * delimiter, then `packfile` and the pack in side-band packets (1: data, 2: progress, 3: an error),
 * ended by a flush.
 */
export function packOf(answer: Buffer, base: string): Buffer {
  let section: string | undefined;
  for (let at = 0; at < answer.length; ) {
    const size = Number.parseInt(answer.toString("latin1", at, at + 4), 16);
    if (!Number.isInteger(size) || (size > 2 && size < 4) || at + Math.max(size, 4) > answer.length)
      throw protocolError(base, "bad line length");
    const payload = answer.subarray(at + 4, size <= 2 ? at + 4 : at + size);
    at += size <= 2 ? 4 : size;
    if (size <= 2) {
      // a section's end
      section = undefined;
      continue;
    }
    const line = payload.toString("utf8").replace(/\n$/, "");
    if (line.startsWith("ERR "))
      throw new GitCommandError(["fetch"], 128, `remote: ${line.slice(4)}\n`, "other");
    if (line === "packfile" && section === undefined)
      return pack(sideBandData(answer.subarray(at), base, "fetch"), base);
    if (section === undefined) section = line;
  }
  throw protocolError(base, "an answer without a pack");
}

/** `bytes` when it is a version 2 or 3 pack (the clone's writer checks the rest). */
function pack(bytes: Buffer, base: string): Buffer {
  const version = bytes.length >= 12 ? bytes.readUInt32BE(4) : 0;
  if (bytes.toString("latin1", 0, 4) !== "PACK" || (version !== 2 && version !== 3))
    throw protocolError(base, "a pack without its header");
  return bytes;
}

/** How many objects a pack holds (its header says). */
export function packObjects(pack: Buffer): number {
  return pack.readUInt32BE(8);
}
