import { readFile, rename, writeFile } from "node:fs/promises";
import { resolve } from "node:path";
import { CATALOG_BRANCH, CATALOG_FILE, type DeprecationReference } from "../catalog/index.js";
import { catalogState } from "../jobs/catalog/read.js";
import { type CatalogEditFn, deprecateEdit, removeEdit, skipEdit } from "../jobs/catalog/withdraw.js";
import { writeCatalog } from "../jobs/catalog/write.js";
import { failed, withRepository } from "./catalog-repository.js";
import { type CliIO, UsageError } from "./io.js";

export const EDIT_VERBS = ["skip", "deprecate", "remove"] as const;
export type EditVerb = (typeof EDIT_VERBS)[number];

export interface EditValues {
  file?: string;
  repo?: string;
  repository?: string;
  "api-url"?: string;
  channel?: string;
  package?: boolean;
  message?: string;
}

const REVISION = /^v[1-9][0-9]*$/;

/**
 * `porchlight catalog skip|deprecate|remove`: the same edits, with the same rules and the same "already"
 * answers, as the `/skip`, `/deprecate` and `/remove` commands — on a local file (`--file`, written in
 * place), or on branch `porchlight/catalog` of a GitHub repository (`--repository`, one commit pushed
 * without force; a branch that moved meanwhile is read again and the edit made again).
 */
export async function runCatalogEdit(
  verb: EditVerb,
  positionals: readonly string[],
  values: EditValues,
  io: CliIO,
  usage: string,
): Promise<number> {
  const { pkg, what, edit, message } = plan(verb, positionals, values, usage);
  const done = (changed: boolean, where: string) => {
    io.stdout(
      changed
        ? `${pkg} ${what}: ${PAST[verb]} in ${where}${message ? ` (“${message}”)` : ""}\n`
        : `${pkg} ${what}: ${PAST[verb]} already in ${where}; nothing changed\n`,
    );
    return 0;
  };
  const refuse = (why: string) => {
    io.stderr(`porchlight catalog ${verb}: ${why}\n`);
    return 1;
  };
  if (values.repo !== undefined)
    throw new UsageError(
      `porchlight catalog ${verb}: --repo reads a local clone; to change the catalog, give --repository OWNER/REPO (branch ${CATALOG_BRANCH} on GitHub) or --file FILE\n\n${usage}`,
    );
  if (values.repository !== undefined) {
    if (values.file !== undefined)
      throw new UsageError(`porchlight catalog ${verb}: give --file or --repository, not both`);
    const out = await withRepository(
      io,
      { full: values.repository, apiUrl: values["api-url"], command: `catalog ${verb}` },
      async (repo) => ({
        where: `${CATALOG_BRANCH} of ${repo.full}`,
        write: await writeCatalog(repo.conn.port, {
          author: await repo.author(),
          message: `catalog: ${verb} ${pkg} ${what}`,
          edit,
        }),
      }),
    );
    if (failed(out)) return refuse(out.failed);
    if (out.write.kind === "refused") return refuse(out.write.message);
    return done(out.write.kind === "committed", out.where);
  }
  const name = values.file ?? CATALOG_FILE;
  const path = resolve(io.cwd, name);
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (e) {
    return refuse(`cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  const out = edit(catalogState(text, "file", name));
  if ("refused" in out) return refuse(out.refused);
  if (out.text === text) return done(false, name);
  // Written whole or not at all: a crash never leaves half a catalog.
  const temp = `${path}.porchlight-${process.pid}`;
  await writeFile(temp, out.text);
  await rename(temp, path);
  return done(true, name);
}

const PAST: Record<EditVerb, string> = { skip: "skipped", deprecate: "deprecated", remove: "removed" };

function plan(
  verb: EditVerb,
  positionals: readonly string[],
  values: EditValues,
  usage: string,
): { pkg: string; what: string; edit: CatalogEditFn; message?: string } {
  const wrong = (why: string) => new UsageError(`porchlight catalog ${verb}: ${why}\n\n${usage}`);
  const [pkg, revision, ...extra] = positionals;
  if (!pkg) throw wrong("name the package");
  if (extra.length > 0) throw wrong(`unexpected arguments: ${extra.join(" ")}`);
  if (revision !== undefined && !REVISION.test(revision))
    throw wrong(`"${revision}" is not a revision; revisions look like v2`);
  if (verb !== "deprecate") {
    if (values.channel !== undefined || values.package || values.message !== undefined)
      throw wrong("--channel, --package and --message go with deprecate only");
    if (!revision) throw wrong(`name the revision: porchlight catalog ${verb} ${pkg} v2`);
    return { pkg, what: revision, edit: (verb === "skip" ? skipEdit : removeEdit)(pkg, revision) };
  }
  const targets = [revision, values.channel, values.package ? "package" : undefined].filter(
    (t) => t !== undefined,
  );
  if (targets.length !== 1) throw wrong("deprecate one thing: a revision (v2), --channel NAME, or --package");
  const message = values.message?.trim();
  if (!message)
    throw wrong("--message is needed: say why, and what to use instead (as olm.deprecations asks)");
  const reference: DeprecationReference = revision
    ? { schema: "olm.bundle", name: revision }
    : values.channel !== undefined
      ? { schema: "olm.channel", name: values.channel }
      : { schema: "olm.package" };
  const what = revision ?? (values.channel !== undefined ? `channel ${values.channel}` : "(the package)");
  return { pkg, what, edit: deprecateEdit(pkg, reference, message), message };
}
