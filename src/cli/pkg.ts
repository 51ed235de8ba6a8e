import { existsSync } from "node:fs";
import { basename, dirname, relative, resolve } from "node:path";
import { attributionEnabled } from "../kpt/attribution.js";
import { KptError, kptfileKptText } from "../kpt/errors.js";
import { sourceKind } from "../kpt/source-ref.js";
import { formatDiff, isStrategy, MergeError, STRATEGIES, type UpdateStrategy } from "../merge/index.js";
import { UpstreamError } from "../porch/upstream.js";
import { SourceError } from "../sources/errors.js";
import { missingPathError } from "./go-errors.js";
import { type CliCommand, type CliIO, UsageError } from "./io.js";
import { parseCommandArgs } from "./options.js";
import { diffPackage } from "./pkg/diff.js";
import { getPackage } from "./pkg/get.js";
import { initCommand } from "./pkg/init.js";
import { parseRepoSpec, RepoSpecError } from "./pkg/repospec.js";
import { treeCommand } from "./pkg/tree.js";
import { updatePackage } from "./pkg/update.js";

const HELP = `porchlight pkg — fetch, update and compare kpt packages (as kpt pkg does)

Usage:
  porchlight pkg get REPO[/DIR][@REF] [LOCAL_DIR] [--strategy S] [--for-deployment]
      Copy a package from a git repository (path, file:// or https URL; mark the end of the
      repository with .git when a directory follows) at a branch, tag or commit.
      --for-deployment: a deployable instance, as kpt makes it: package-context.yaml is
      generated anew, its data.name the package's own name.
  porchlight pkg get oci://REGISTRY/REPO[//DIR][:TAG|@sha256:HEX] [LOCAL_DIR]
  porchlight pkg get https://HOST/PATH/PKG.tar.gz[//DIR][#sha256=HEX] [LOCAL_DIR]
      Copy a package from an OCI image or artifact (a tag resolves to its digest; credentials
      from ~/.docker/config.json or PORCHLIGHT_OCI_REGISTRY/_USERNAME/_PASSWORD), or from a
      tarball (pinned by sha256 when given). The Kptfile records both in annotations
      porchlight.dev/upstream and porchlight.dev/upstream-lock. See docs/sources.md.
  porchlight pkg update [DIR][@REF] [--strategy S] [--allow-conflicts] [--allow-dirty]
      (REF: for an OCI upstream a tag or sha256 digest; for a tarball a new URL)
      Merge the upstream's changes since the package was fetched into it; subpackages that
      name an upstream of their own are updated from it. Refuses uncommitted changes (unless
      --allow-dirty) and writes nothing while a non-KRM file conflicts (unless --allow-conflicts).
  porchlight pkg diff [DIR][@REF]
      Show local changes since the fetch, and upstream changes since then.
  porchlight pkg init [DIR] [--description TEXT] [--keywords K1,K2] [--site URL]
      Initialize an empty package in an existing directory: Kptfile, README.md and
      package-context.yaml, as kpt pkg init writes them (files already there are kept).
  porchlight pkg tree [DIR]
      Show the package's resources and subpackages as a tree, as kpt pkg tree does.

Strategies: ${STRATEGIES.join(", ")} (default: the Kptfile's, else resource-merge).
`;

interface Parsed {
  positional: string[];
  strategy?: UpdateStrategy;
  forDeployment: boolean;
  allowConflicts: boolean;
  allowDirty: boolean;
}

const HELP_FLAG = { help: { type: "boolean", short: "h" } } as const;
const STRATEGY = { strategy: { type: "string" } } as const;
/** Each verb's flags; another is refused by name (options.ts). */
const FLAGS = {
  get: { ...STRATEGY, "for-deployment": { type: "boolean" }, ...HELP_FLAG },
  update: {
    ...STRATEGY,
    "allow-conflicts": { type: "boolean" },
    "allow-dirty": { type: "boolean" },
    ...HELP_FLAG,
  },
  diff: HELP_FLAG,
} as const;

function parseVerbArgs(verb: keyof typeof FLAGS, args: string[]): Parsed | "help" {
  const { values, positionals } = parseCommandArgs(`pkg ${verb}`, args, FLAGS[verb], HELP);
  const v = values as {
    strategy?: string;
    "for-deployment"?: boolean;
    "allow-conflicts"?: boolean;
    "allow-dirty"?: boolean;
    help?: boolean;
  };
  if (v.help) return "help";
  const strategy = v.strategy;
  if (strategy !== undefined && !isStrategy(strategy))
    throw new UsageError(`unknown --strategy "${strategy}"; known: ${STRATEGIES.join(", ")}`);
  return {
    positional: positionals,
    ...(strategy !== undefined ? { strategy } : {}),
    forDeployment: v["for-deployment"] === true,
    allowConflicts: v["allow-conflicts"] === true,
    allowDirty: v["allow-dirty"] === true,
  };
}

/**
 * `DIR@REF` → dir and ref: at the first `@` whose left side is a directory (as kpt splits, so a ref
 * may hold `/`: `hello@hello/v2`), else at the `@` after the last slash.
 */
function splitDirRef(arg: string | undefined, cwd: string): { dir: string; ref?: string } {
  const a = arg ?? ".";
  const first = a.indexOf("@");
  if (first > 0 && existsSync(resolve(cwd, a.slice(0, first))))
    return { dir: resolve(cwd, a.slice(0, first)), ref: a.slice(first + 1) || undefined };
  const at = a.lastIndexOf("@");
  if (at >= 0 && !a.slice(at).includes("/"))
    return { dir: resolve(cwd, a.slice(0, at) || "."), ref: a.slice(at + 1) || undefined };
  return { dir: resolve(cwd, a) };
}

function kptTextOf(err: Error): string | undefined {
  return err instanceof MergeError || err instanceof UpstreamError ? err.kptText : undefined;
}

/** A commit as 12 hex digits; a digest (OCI, tarball) as `sha256:` and 12. */
function short(commit: string): string {
  return commit.startsWith("sha256:") ? commit.slice(0, 19) : commit.slice(0, 12);
}

async function get(p: Parsed, io: CliIO): Promise<number> {
  const [spec, dest] = p.positional;
  if (!spec) throw new UsageError(`pkg get needs REPO[/DIR][@REF]\n\n${HELP}`);
  const repo = parseRepoSpec(spec, io.cwd);
  const name = dest ?? repo.name ?? (basename(repo.directory) || basename(repo.repo));
  const localDir = resolve(io.cwd, name);
  const r = await getPackage(repo, localDir, {
    ...(p.strategy ? { strategy: p.strategy } : {}),
    attribution: attributionEnabled(io.env),
    forDeployment: p.forDeployment,
    env: io.env,
    // kpt's own words, as `kpt pkg get` warns
    onSymlink: (path) => io.stderr(`[Warn] Ignoring symlink "${path}" \n`),
  });
  const from = sourceKind(spec) ? spec : `${repo.repo}${repo.directory}@${r.ref}`;
  io.stdout(`Fetched ${from} (${short(r.commit)}) into ${name}\n`);
  if (p.forDeployment) io.stdout("Customized package for deployment.\n");
  return 0;
}

/** kpt's answer to a package directory that is not there (`error: lstat DIR: …`), or undefined. */
function missingDir(dir: string, io: CliIO): number | undefined {
  const missing = missingPathError(io.cwd, relative(io.cwd, dir) || ".");
  if (missing === undefined) return undefined;
  io.stderr(`error: ${missing}\n`);
  return 1;
}

async function update(p: Parsed, io: CliIO): Promise<number> {
  const { dir, ref } = splitDirRef(p.positional[0], io.cwd);
  const missing = missingDir(dir, io);
  if (missing !== undefined) return missing;
  const r = await updatePackage(dir, {
    ref,
    strategy: p.strategy,
    allowConflicts: p.allowConflicts,
    allowDirty: p.allowDirty,
    source: { env: io.env },
  });
  for (const c of r.changes) io.stdout(`${c.action}: ${c.file}${c.resource ? ` ${c.resource}` : ""}\n`);
  if (r.conflicts.length > 0) {
    for (const c of r.conflicts) io.stderr(`conflict: ${c.file}:${c.lines[0]}-${c.lines[1]}: ${c.message}\n`);
    if (!r.written) {
      io.stderr(
        "pkg update: nothing written: resolve the conflicts in upstream or local, or run with --allow-conflicts to write the files with conflict markers\n",
      );
      return 1;
    }
    return 1;
  }
  io.stdout(`Updated to ${r.ref || r.commit} (${short(r.commit)})\n`);
  for (const u of r.packages.slice(1)) {
    io.stdout(
      `Updated subpackage ${u.dir} from its own upstream to ${u.ref || u.commit} (${short(u.commit)})\n`,
    );
  }
  return 0;
}

async function diff(p: Parsed, io: CliIO): Promise<number> {
  const { dir, ref } = splitDirRef(p.positional[0], io.cwd);
  const missing = missingDir(dir, io);
  if (missing !== undefined) return missing;
  io.stdout(formatDiff(await diffPackage(dir, ref, { env: io.env })));
  return 0;
}

export const pkgCommand: CliCommand = async (args, io) => {
  const [verb, ...rest] = args;
  if (!verb || verb === "--help" || verb === "-h") {
    io.stdout(HELP);
    return verb ? 0 : 2;
  }
  // kpt's twins answer flags and arguments in kpt's words (fn-args.ts), as `fn` does.
  if (verb === "init") return initCommand(rest, io);
  if (verb === "tree") return treeCommand(rest, io);
  const handlers: Record<string, (p: Parsed, io: CliIO) => Promise<number>> = { get, update, diff };
  const handler = Object.hasOwn(handlers, verb) ? handlers[verb] : undefined;
  if (!handler) throw new UsageError(`unknown pkg command "${verb}"; known: get, update, diff, init, tree`);
  const parsed = parseVerbArgs(verb as keyof typeof FLAGS, rest);
  if (parsed === "help") {
    io.stdout(HELP);
    return 0;
  }
  try {
    return await handler(parsed, io);
  } catch (err) {
    if (
      err instanceof MergeError ||
      err instanceof UpstreamError ||
      err instanceof RepoSpecError ||
      err instanceof SourceError ||
      err instanceof KptError
    ) {
      // kpt's words first where kpt has some (scripts look for them), then porchlight's, which say more.
      const kpt = err instanceof KptError ? kptfileKptText(err, dirname(err.position.file)) : kptTextOf(err);
      if (kpt !== undefined) io.stderr(`Error: ${kpt} \n`);
      io.stderr(`pkg ${verb}: ${err.message}\n`);
      return 1;
    }
    throw err;
  }
};
