import type { PackageRevision } from "../../lifecycle/index.js";
import { PorchError } from "../../porch/errors.js";
import { nameOf } from "../../porch/names.js";
import { openRepository, type Registration, type Repository } from "../../porch/repository.js";
import { readUpstreamLocks, sameServerRepository, type UpstreamLock } from "../../porch/upstream-lock.js";
import { alignColumns } from "../kubectl-output.js";
import type { ParsedArgs } from "./args.js";
import type { RpkgEnv } from "./env.js";
import { openVerbRepository } from "./verb.js";

/** One revision of the namespace, with the repository (registration) it is listed in. */
interface Listed {
  repo: Repository;
  rev: PackageRevision;
  name: string;
  lock: UpstreamLock | undefined;
}

/**
 * `rpkg upgrade --discover=upstream|downstream`, as porchctl's: which downstream revisions have newer
 * upstream revisions to upgrade to, read from each revision's upstream lock and the published revisions
 * of the registration holding its upstream package.
 */
export async function discoverUpgrades(mode: string, args: ParsedArgs, env: RpkgEnv): Promise<number> {
  if (mode !== "upstream" && mode !== "downstream")
    throw new PorchError("bad-request", "argument for 'discover' must be one of 'upstream' or 'downstream'");
  // the whole namespace, as porchctl lists it: every registration, else the one repository
  const repos =
    env.registrations && env.registrations.size > 0
      ? await Promise.all([...env.registrations.keys()].map((n) => openRepository(env, n, "upgrade")))
      : [await openVerbRepository("upgrade", args, env)];
  const listed = (await Promise.all(repos.map(revisionsOf))).flat();
  listed.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const registrations: [string, Registration][] =
    env.registrations && env.registrations.size > 0
      ? [...env.registrations]
      : repos.map((r) => [r.name, { full: r.full, directory: r.directory }]);
  // Without a namespace's registrations, the upstream repositories the locks name on this server are
  // read too (by their own names), so one repository's downstream packages find their upgrades.
  const pool = [...listed];
  if (!env.registrations || env.registrations.size === 0) {
    const others = new Set<string>();
    for (const l of listed) {
      const full = l.lock && sameServerRepository(l.lock.git.repo, l.repo.conn.info.cloneUrl);
      if (full && !registrations.some(([, r]) => r.full.toLowerCase() === full.toLowerCase()))
        others.add(full);
    }
    for (const full of others) {
      const repo = await openRepository(env, full, "upgrade");
      registrations.push([repo.name, { full: repo.full, directory: "" }]);
      pool.push(...(await revisionsOf(repo)));
    }
  }

  const named = (name: string) => listed.find((l) => l.name === name);
  if (mode === "upstream") {
    let chosen = listed;
    if (args.positional.length > 0) {
      const missing = args.positional.filter((n) => !named(n));
      if (missing.length > 0)
        throw new PorchError(
          "not-found",
          `errors:\n  ${missing.map((n) => `could not find package revision ${n}`).join("\n  ")}`,
        );
      chosen = args.positional.map((n) => named(n) as Listed);
    }
    const rows = chosen.map((l) => {
      const { upstream, updates } = availableUpdates(l, pool, registrations);
      return [
        l.name,
        upstream,
        updates.length === 0 ? "No update available" : updates.map((u) => `v${u.rev.revision}`).join(", "),
      ];
    });
    env.io.stdout(alignColumns([["PACKAGE REVISION", "UPSTREAM REPOSITORY", "UPSTREAM UPDATES"], ...rows]));
    return 0;
  }

  const rows: { name: string; cells: string[] }[] = [];
  for (const l of listed) {
    const { updates, draft } = availableUpdates(l, pool, registrations);
    const from = l.lock?.git.ref.slice(l.lock.git.ref.lastIndexOf("v")) ?? "";
    for (const u of updates)
      rows.push({
        name: u.name,
        cells: [
          u.name,
          l.name,
          draft ? `(draft "${draft}")->v${u.rev.revision}` : `${from}->v${u.rev.revision}`,
        ],
      });
  }
  rows.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const shown = args.positional.length > 0 ? rows.filter((r) => args.positional.includes(r.name)) : rows;
  env.io.stdout(
    shown.length === 0
      ? "All downstream packages are up to date.\n"
      : alignColumns([
          ["PACKAGE REVISION", "DOWNSTREAM PACKAGE", "DOWNSTREAM UPDATE"],
          ...shown.map((r) => r.cells),
        ]),
  );
  return 0;
}

/**
 * The published revisions of `l`'s upstream package newer than the one its lock carries, and the name of
 * the registration holding that package (the one whose directory holds it, the deepest first).
 */
function availableUpdates(
  l: Listed,
  listed: readonly Listed[],
  registrations: readonly [string, Registration][],
): { upstream: string; updates: Listed[]; draft?: string } {
  const git = l.lock?.git;
  const slash = git?.ref.lastIndexOf("/") ?? -1;
  if (!git || slash < 0) return { upstream: "", updates: [] };
  const full = sameServerRepository(git.repo, l.repo.conn.info.cloneUrl);
  const draft = git.ref.startsWith("drafts/") ? git.ref.slice(slash + 1) : undefined;
  const current = draft ? 0 : Number(git.ref.slice(slash + 1).replace(/^v/, "")) || 0;
  const path = git.ref.slice(0, slash).replace(/^drafts\//, "");
  const same = registrations.filter(([, r]) => full && r.full.toLowerCase() === full.toLowerCase());
  const holding = same
    .filter(([, r]) => r.directory === "" || path.startsWith(`${r.directory}/`))
    .sort(([, a], [, b]) => b.directory.length - a.directory.length)[0];
  const registration = holding ?? same[0];
  if (!registration) return { upstream: "", updates: [] };
  const [upstream, { directory }] = registration;
  const pkg = directory && path.startsWith(`${directory}/`) ? path.slice(directory.length + 1) : path;
  const updates = listed.filter(
    (u) =>
      u.repo.name === upstream &&
      u.rev.package === pkg &&
      (u.rev.lifecycle === "Published" || u.rev.lifecycle === "DeletionProposed") &&
      u.rev.revision > current,
  );
  return { upstream, updates, ...(draft ? { draft } : {}) };
}

async function revisionsOf(repo: Repository): Promise<Listed[]> {
  const { revisions } = await repo.load();
  const locks = await readUpstreamLocks(repo, revisions);
  return revisions.map((rev) => ({ repo, rev, name: nameOf(repo, rev), lock: locks.get(rev) }));
}
