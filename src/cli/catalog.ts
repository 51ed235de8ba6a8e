import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { stringify } from "yaml";
import {
  CATALOG_BRANCH,
  CATALOG_FILE,
  type Catalog,
  CatalogError,
  findPackage,
  listChannels,
  listPackages,
  listRevisions,
  parseCatalog,
  upgradePath,
} from "../catalog/index.js";
import { GitCommandError, runGit } from "../github/git-process.js";
import { readCatalog } from "../jobs/catalog/read.js";
import { EDIT_VERBS, runCatalogEdit } from "./catalog-edit.js";
import { failed, withRepository } from "./catalog-repository.js";
import { type CliCommand, type CliIO, UsageError } from "./io.js";
import { parseCommandArgs } from "./options.js";

const USAGE = `Usage: porchlight catalog [list | revisions PKG | channels PKG | path PKG FROM [--channel C]]
                         [--file catalog.yaml | --repo DIR | --repository OWNER/REPO] [-o table|yaml|json]
       porchlight catalog skip PKG REV | remove PKG REV
                         [--file catalog.yaml | --repository OWNER/REPO [--api-url URL]]
       porchlight catalog deprecate PKG (REV | --channel C | --package) --message TEXT
                         [--file catalog.yaml | --repository OWNER/REPO [--api-url URL]]

Shows the package catalog: published revisions, channels and upgrade paths.
  list              packages, their revision count, latest revision and channels (default)
  revisions PKG     every published revision of PKG with commit, time and channels
  channels PKG      every channel of PKG with its head and entries
  path PKG FROM     the upgrade path from revision FROM to the channel head

Changes it, with the channel rules enforced (the same edits as /skip, /deprecate and /remove):
  skip PKG REV      downstreams jump over REV and it is never offered again (not a channel head)
  deprecate PKG ... REV, channel C or the whole package stays installable, with --message for its users
  remove PKG REV    takes REV out of the catalog (its tag stays; downstreams on it still upgrade);
                    refused for a channel head, naming the upgrade path it would break

  --file FILE       read (and edit in place) the catalog in FILE (default: ./${CATALOG_FILE})
  --repo DIR        read ${CATALOG_FILE} from branch ${CATALOG_BRANCH} of the git repository at DIR
  --repository R    read and change ${CATALOG_FILE} on branch ${CATALOG_BRANCH} of GitHub repository
                    OWNER/REPO (token in GH_TOKEN or GITHUB_TOKEN; --api-url as for porchlight rpkg)
  --channel C       the channel for 'path' (default: the package's defaultChannel), or to deprecate
  --package         deprecate the whole package
  -m, --message M   why it is deprecated, and what to use instead
  -o, --output F    table (default), yaml or json
`;

const OUTPUTS = ["table", "yaml", "json"] as const;
type Output = (typeof OUTPUTS)[number];

export const catalogCommand: CliCommand = async (args, io) => {
  const { values, positionals } = parseCommandArgs("catalog", args, OPTIONS, USAGE);
  if (values.help) {
    io.stdout(USAGE);
    return 0;
  }
  const output = OUTPUTS.find((o) => o === (values.output ?? "table"));
  if (!output)
    throw new UsageError(`porchlight catalog: unknown output "${values.output}": use table, yaml or json`);
  if (values.file && values.repo) throw new UsageError("porchlight catalog: give --file or --repo, not both");

  const edit = EDIT_VERBS.find((v) => v === positionals[0]);
  if (edit) return runCatalogEdit(edit, positionals.slice(1), values, io, USAGE);
  if (values.package || values.message !== undefined)
    throw new UsageError(`porchlight catalog: --package and --message go with deprecate\n\n${USAGE}`);
  if (values.repository !== undefined && (values.file || values.repo))
    throw new UsageError("porchlight catalog: give one of --file, --repo and --repository");
  const [verb = "list", pkgName, from, ...extra] = positionals;
  const needs = { list: 0, revisions: 1, channels: 1, path: 2 }[verb];
  if (needs === undefined)
    throw new UsageError(`porchlight catalog: unknown subcommand "${verb}"\n\n${USAGE}`);
  if (Math.max(positionals.length - 1, 0) !== needs || extra.length > 0)
    throw new UsageError(`porchlight catalog ${verb}: wrong arguments\n\n${USAGE}`);

  const loaded = await loadCatalog(values, io);
  if (typeof loaded === "number") return loaded;
  const { source, catalog } = loaded;
  const pkg = pkgName === undefined ? undefined : findPackage(catalog, pkgName);
  if (pkgName !== undefined && !pkg) {
    io.stderr(
      `porchlight catalog: no package ${pkgName} in ${source} (packages: ${catalog.packages.map((p) => p.name).join(", ") || "none"})\n`,
    );
    return 1;
  }
  switch (verb) {
    case "list":
      printPackages(io, output, catalog);
      return 0;
    case "revisions":
      printRevisions(io, output, catalog, pkgName as string);
      return 0;
    case "channels":
      printChannels(io, output, catalog, pkgName as string);
      return 0;
    default:
      return printPath(io, output, catalog, {
        pkg: pkgName as string,
        from: from as string,
        channel: values.channel,
      });
  }
};

/** The catalog read and parsed, with where it was read; else the exit code, its failure said on stderr. */
async function loadCatalog(
  values: Parameters<typeof readCatalogText>[0],
  io: CliIO,
): Promise<{ source: string; catalog: Catalog } | number> {
  let source: string;
  let text: string;
  try {
    ({ source, text } = await readCatalogText(values, io));
  } catch (err) {
    io.stderr(`porchlight catalog: ${(err as Error).message}\n`);
    return 1;
  }
  try {
    return { source, catalog: parseCatalog(text, source).catalog };
  } catch (err) {
    if (err instanceof CatalogError) {
      io.stderr(`${err.message}\n`);
      return 1;
    }
    throw err;
  }
}

/** `catalog list`: each package, its revision count, latest revision and channels. */
function printPackages(io: CliIO, output: Output, catalog: Catalog): void {
  const rows = listPackages(catalog);
  print(io, output, rows, ["PACKAGE", "REVISIONS", "LATEST", "DEFAULT CHANNEL", "CHANNELS"], (r) => [
    r.name,
    String(r.revisions),
    r.latest ?? "-",
    r.defaultChannel ?? "-",
    r.channels.join(",") || "-",
  ]);
}

/** `catalog revisions PKG`; the table ends with the package's deprecation and its removed revisions. */
function printRevisions(io: CliIO, output: Output, catalog: Catalog, pkgName: string): void {
  const rows = listRevisions(catalog, pkgName) ?? [];
  print(io, output, rows, ["REVISION", "COMMIT", "TIME", "CHANNELS", "SKIPPED IN", "DEPRECATED"], (r) => [
    r.revision,
    r.commit.slice(0, 12),
    r.time,
    r.channels.join(",") || "-",
    r.skippedIn.join(",") || "-",
    r.deprecated ?? "-",
  ]);
  const pkgNote = listPackages(catalog).find((p) => p.name === pkgName);
  if (output === "table" && pkgNote?.deprecated)
    io.stdout(`${pkgName} is deprecated: ${pkgNote.deprecated}\n`);
  if (output === "table" && pkgNote?.removed.length)
    io.stdout(`removed from the catalog (tags kept): ${pkgNote.removed.join(", ")}\n`);
}

/** `catalog channels PKG`: each channel, its head and its entries. */
function printChannels(io: CliIO, output: Output, catalog: Catalog, pkgName: string): void {
  const rows = listChannels(catalog, pkgName) ?? [];
  print(io, output, rows, ["CHANNEL", "HEAD", "DEPRECATED", "ENTRIES"], (c) => [
    c.name,
    c.head ?? "-",
    c.deprecated ? "yes" : "-",
    c.entries
      .map(
        (e) =>
          `${e.name}${e.replaces ? `<-${e.replaces}` : ""}${e.skips.length ? ` skips ${e.skips.join(",")}` : ""}${e.skipRange ? ` skipRange ${e.skipRange}` : ""}`,
      )
      .join("; "),
  ]);
}

/** `catalog path PKG FROM [--channel C]`: the upgrade path to the channel's head; the exit code. */
function printPath(
  io: CliIO,
  output: Output,
  catalog: Catalog,
  q: { pkg: string; from: string; channel: string | undefined },
): number {
  const pkg = findPackage(catalog, q.pkg);
  // No --channel: the package's default channel, where a downstream that names none lands.
  const channel = q.channel ?? pkg?.defaultChannel;
  if (!channel) {
    const reason = pkg ? `${q.pkg} is in no channel yet` : `the catalog has no package ${q.pkg}`;
    io.stderr(`porchlight catalog path: ${reason}\n`);
    return 1;
  }
  const result = upgradePath(catalog, q.pkg, q.from, channel);
  if (!result.ok) {
    io.stderr(`porchlight catalog path: ${result.reason}\n`);
    return 1;
  }
  const value = { package: q.pkg, channel, from: q.from, to: result.path.at(-1), path: result.path };
  if (output === "table") io.stdout(`${result.path.join(" -> ")}\n`);
  else io.stdout(output === "json" ? `${JSON.stringify(value, null, 2)}\n` : stringify(value));
  return 0;
}

const OPTIONS = {
  file: { type: "string" },
  repo: { type: "string" },
  channel: { type: "string" },
  repository: { type: "string" },
  "api-url": { type: "string" },
  package: { type: "boolean" },
  message: { type: "string", short: "m" },
  output: { type: "string", short: "o" },
  help: { type: "boolean", short: "h" },
} as const;

async function readCatalogText(
  values: { file?: string; repo?: string; repository?: string; "api-url"?: string },
  io: CliIO,
): Promise<{ source: string; text: string }> {
  if (values.repository !== undefined) {
    const full = values.repository;
    const out = await withRepository(
      io,
      { full, apiUrl: values["api-url"], command: "catalog" },
      async (repo) => {
        const state = await readCatalog(repo.conn.port);
        if (!state.head)
          throw new Error(`${repo.full} has no branch ${CATALOG_BRANCH}: has porchlight published there?`);
        return { source: `${CATALOG_BRANCH}:${CATALOG_FILE} of ${repo.full}`, text: state.text };
      },
    );
    if (failed(out)) throw new Error(out.failed);
    return out;
  }
  if (values.repo !== undefined) {
    const dir = resolve(io.cwd, values.repo);
    const missing: string[] = [];
    for (const ref of [CATALOG_BRANCH, `origin/${CATALOG_BRANCH}`]) {
      try {
        const text = await runGit(["-C", dir, "show", `${ref}:${CATALOG_FILE}`], { cwd: io.cwd });
        return { source: `${ref}:${CATALOG_FILE}`, text: text.toString("utf8") };
      } catch (err) {
        const e = err as NodeJS.ErrnoException;
        if (e.code === "ENOENT" && !(err instanceof GitCommandError))
          throw new Error(`cannot run git (${e.message}): is git installed and on PATH?`);
        const said = (err instanceof GitCommandError ? err.stderr : e.message).trim();
        // Only "this ref or file is not there" moves on to the next ref; anything else is the answer.
        if (!(err instanceof GitCommandError && err.kind === "missing"))
          throw new Error(`cannot read ${CATALOG_FILE} from ${ref} of ${dir}: ${said}`);
        missing.push(`${ref}: ${said.split("\n")[0]}`);
      }
    }
    throw new Error(
      `cannot read ${CATALOG_FILE} from branch ${CATALOG_BRANCH} of ${dir}: has porchlight published there? (${missing.join("; ")})`,
    );
  }
  const file = resolve(io.cwd, values.file ?? CATALOG_FILE);
  try {
    return { source: values.file ?? CATALOG_FILE, text: await readFile(file, "utf8") };
  } catch (err) {
    throw new Error(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

function print<T>(io: CliIO, output: Output, rows: T[], header: string[], cells: (row: T) => string[]): void {
  if (output === "json") {
    io.stdout(`${JSON.stringify(rows, null, 2)}\n`);
    return;
  }
  if (output === "yaml") {
    io.stdout(stringify(rows));
    return;
  }
  const table = [header, ...rows.map(cells)];
  const widths = header.map((_, i) => Math.max(...table.map((r) => (r[i] ?? "").length)));
  io.stdout(
    `${table.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i] ?? 0))).join("  ")).join("\n")}\n`,
  );
}
