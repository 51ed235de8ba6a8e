import { GitCommandError, gitFailureKind } from "../git-process.js";
import { receivePack, receivePackAdvert, ZERO_ID } from "../git-push-http.js";
import { GIT_AGENT } from "../git-refs-http.js";
import type { CacheClone } from "./clone.js";
import { askable, type InProcessUse } from "./in-process.js";
import { remote, withHeaders } from "./remote.js";

/** One ref a push sets: to commit `to`, or deleted (null); with `lease`, only while the remote's ref is at that commit. */
export interface RefUpdate {
  readonly ref: string;
  readonly to: string | null;
  readonly lease?: string;
}

/** What a push did to a ref: set it, or found it already where it was to be (git's `=`). */
export type RefPushed = "updated" | "unchanged";

export interface PushOptions {
  /** All updates or none (`--atomic`): a server that cannot fails as git's push does ("other"). */
  readonly atomic?: boolean;
  /**
   * Commits the remote holds that the pushed ones build on (a new commit's parent, a tag's commit): the
   * pack sent in process holds what those do not reach. One the remote lacks after all makes the server
   * refuse the pack, and git pushes instead.
   */
  readonly bases?: readonly (string | null | undefined)[];
}

/**
 * Pushes `updates` to the remote as `git push --porcelain [--atomic] [--force-with-lease=REF:LEASE…]
 * URL TO:REF… :REF…` would, never with force: in this process over smart HTTP (git-push-http.ts) where
 * `use` says so, else by git. What each ref became, by ref; a refusal (a ref moved, a lease lost, a
 * tag taken, a rule of the server) fails as git's does, kind "rejected", in git's words.
 *
 * git's push read the remote's advertisement of every ref and packed what the pushed commits reach
 * less what all those refs reach: the more tags and drafts a repository held (Porch's iterative test
 * makes two refs a revision), the longer each push took, 17 ms of git's CPU at 10 revisions a
 * registration and 34 at 100. In process, the pack is what the pushed commits reach less what `bases`
 * and the refs' present commits reach, whatever else the remote holds: one `git pack-objects`, where
 * git started four processes.
 */
export async function pushRefs(
  clone: CacheClone,
  use: InProcessUse,
  updates: readonly RefUpdate[],
  opts: PushOptions = {},
): Promise<Map<string, RefPushed>> {
  await clone.init();
  if (use.transfer && askable(clone.url, use)) {
    const pushed = await withHeaders(clone, (headers) => pushInProcess(clone, use, headers, updates, opts));
    if (pushed) return pushed;
  }
  return pushByGit(clone, updates, opts);
}

async function pushByGit(
  clone: CacheClone,
  updates: readonly RefUpdate[],
  opts: PushOptions,
): Promise<Map<string, RefPushed>> {
  const args = ["push", "--porcelain"];
  if (opts.atomic) args.push("--atomic");
  for (const u of updates) if (u.lease !== undefined) args.push(`--force-with-lease=${u.ref}:${u.lease}`);
  args.push(clone.url, ...updates.map((u) => `${u.to ?? ""}:${u.ref}`));
  const out = (await remote(clone, args)).toString("utf8");
  // `FLAG\tFROM:TO\tSUMMARY` a ref; `=`: it was already there
  const pushed = new Map<string, RefPushed>();
  for (const line of out.split("\n")) {
    const [flag, spec] = line.split("\t");
    const ref = spec?.slice(spec.lastIndexOf(":") + 1);
    if (ref && flag !== undefined && flag.length === 1)
      pushed.set(ref, flag === "=" ? "unchanged" : "updated");
  }
  return pushed;
}

/**
 * The push over smart HTTP; undefined where git is to push instead: the server's advertisement not
 * understood (the server is then left to git a while), a capability missing that git would do without
 * (report-status, delete-refs, SHA-1 ids), or a pack the server found incomplete (nothing updated).
 */
async function pushInProcess(
  clone: CacheClone,
  use: InProcessUse,
  headers: Record<string, string>,
  updates: readonly RefUpdate[],
  opts: PushOptions,
): Promise<Map<string, RefPushed> | undefined> {
  const advert = await receivePackAdvert(clone.url, headers).catch((e: unknown) => {
    if (!(e instanceof GitCommandError) || e.kind !== "protocol") throw e;
    use.notV2.add(clone.url);
    return undefined;
  });
  if (!advert) return undefined;
  const caps = advert.capabilities;
  const format = [...caps].find((c) => c.startsWith("object-format="));
  if (!caps.has("report-status") || (format && format !== "object-format=sha1")) return undefined;
  if (updates.some((u) => u.to === null) && !caps.has("delete-refs")) return undefined;
  if (opts.atomic && !caps.has("atomic"))
    throw new GitCommandError(
      ["push"],
      128,
      "fatal: the receiving end does not support --atomic push\n",
      "other",
    );

  const pushed = new Map<string, RefPushed>();
  const refused: { ref: string; to: string | null; reason: string }[] = [];
  const commands: { old: string; now: string; ref: string }[] = [];
  for (const u of updates) {
    const old = advert.refs.get(u.ref);
    const reason = await refusal(clone, u, old);
    if (reason === "unchanged") pushed.set(u.ref, "unchanged");
    else if (reason) refused.push({ ref: u.ref, to: u.to, reason });
    else commands.push({ old: old ?? ZERO_ID, now: u.to ?? ZERO_ID, ref: u.ref });
  }
  if (refused.length > 0 && opts.atomic) throw rejected(clone.url, refused);
  if (commands.length > 0) {
    const pack = commands.some((c) => c.now !== ZERO_ID)
      ? await packFor(clone, commands, opts.bases ?? [], caps.has("ofs-delta"))
      : undefined;
    const wanted = [
      "report-status",
      "side-band-64k",
      "quiet",
      ...(opts.atomic ? ["atomic"] : []),
      ...(format ? [format] : []),
    ];
    const asked = [...wanted.filter((c) => caps.has(c)), `agent=${GIT_AGENT}`];
    const report = await receivePack(clone.url, headers, commands, asked, pack);
    const incomplete = (why: string | null | undefined) =>
      why != null &&
      /missing necessary objects|unpacker error|unpack-objects abnormal exit|index-pack/.test(why);
    if (report.unpack !== "ok" || commands.some((c) => incomplete(report.refs.get(c.ref)))) {
      // the pack lacked objects the bases were to stand for: nothing was taken; git finds what the remote holds
      if (commands.every((c) => report.refs.get(c.ref) !== null)) return undefined;
    }
    for (const c of commands) {
      const why = report.refs.get(c.ref);
      if (why === null) pushed.set(c.ref, "updated");
      else
        refused.push({
          ref: c.ref,
          to: c.now === ZERO_ID ? null : c.now,
          reason: `remote ${why ?? "no report"}`,
        });
    }
  }
  if (refused.length > 0) throw rejected(clone.url, refused);
  return pushed;
}

/**
 * Why git's push would refuse update `u` of a ref the remote has at `old` before asking the server
 * (git's rules: a lease lost is "stale info"; without one a tag is never moved, a branch only forward
 * to a commit the clone holds); "unchanged" where the ref is already at `u.to`, undefined where it is
 * to be sent.
 */
async function refusal(
  clone: CacheClone,
  u: RefUpdate,
  old: string | undefined,
): Promise<string | "unchanged" | undefined> {
  if (u.to === null) {
    if (old === undefined) return "remote ref does not exist";
    return u.lease !== undefined && u.lease !== old ? "stale info" : undefined;
  }
  if (old === u.to) return "unchanged";
  if (u.lease !== undefined) return u.lease === old ? undefined : "stale info";
  if (old === undefined) return undefined;
  if (u.ref.startsWith("refs/tags/")) return "already exists";
  if (!(clone.holds(old) || (await clone.hasCommit(old)))) return "fetch first";
  return (await isAncestor(clone, old, u.to)) ? undefined : "non-fast-forward";
}

/** Whether commit `older` is `newer` or one of its ancestors. */
async function isAncestor(clone: CacheClone, older: string, newer: string): Promise<boolean> {
  try {
    await clone.git(["merge-base", "--is-ancestor", older, newer]);
    return true;
  } catch (e) {
    if (e instanceof GitCommandError && e.exitCode === 1) return false;
    throw e;
  }
}

/**
 * The thin pack of what the pushed commits reach less what the commits the remote holds reach: the
 * updated refs' present commits and `bases`, those of them this clone holds.
 */
async function packFor(
  clone: CacheClone,
  commands: readonly { old: string; now: string }[],
  bases: readonly (string | null | undefined)[],
  ofsDelta: boolean,
): Promise<Buffer> {
  const candidates = new Set<string>();
  for (const c of commands) if (c.old !== ZERO_ID) candidates.add(c.old);
  for (const b of bases) if (b) candidates.add(b);
  const held: string[] = [];
  for (const sha of candidates) if (clone.holds(sha) || (await clone.hasCommit(sha))) held.push(sha);
  const revs = [
    ...commands.filter((c) => c.now !== ZERO_ID).map((c) => c.now),
    ...held.map((sha) => `^${sha}`),
  ];
  return clone.git(
    ["pack-objects", "--stdout", "--thin", "--revs", "-q", ...(ofsDelta ? ["--delta-base-offset"] : [])],
    `${revs.join("\n")}\n`,
  );
}

/** The refusal of `refused` as git's push reports it (its kind read from those words, as git's is). */
function rejected(
  url: string,
  refused: readonly { ref: string; to: string | null; reason: string }[],
): GitCommandError {
  const lines = refused.map((r) => {
    const remoteWords = r.reason.startsWith("remote ");
    const tag = remoteWords ? "[remote rejected]" : "[rejected]";
    const why = remoteWords ? r.reason.slice("remote ".length) : r.reason;
    return ` ! ${tag} ${r.to ?? "(delete)"} -> ${r.ref} (${why})`;
  });
  const stderr = `To ${url}\n${lines.join("\n")}\nerror: failed to push some refs to '${url}'\n`;
  return new GitCommandError(["push"], 1, stderr, gitFailureKind(stderr));
}
