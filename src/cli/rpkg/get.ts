import { stringify } from "yaml";
import { formatRevisionTable, type PackageRevision } from "../../lifecycle/index.js";
import { UsageError } from "../io.js";
import { intFlag } from "./args.js";
import { RpkgError } from "./errors.js";
import { findRevision } from "./names.js";
import { listObject, packageRevisionObject } from "./objects.js";
import { readUpstreamLocks, upstreamColumns } from "./upstream-lock.js";
import { openVerbRepository, type Verb } from "./verb.js";

const USAGE = `porchlight rpkg get [PACKAGE_REV_NAME...] --repository=OWNER/REPO [flags]

List the package revisions of a repository (drafts, proposals, published revisions), or the named ones.

Flags:
  --name PACKAGE        only revisions of this package
  --revision N          only revisions with this revision number (0: unpublished)
  --workspace W         only revisions with this workspace name
  -o, --output FORMAT   table (default: porchctl's columns), wide (adds UPSTREAM and UPSTREAMREVISION:
                        the upstream package a downstream revision carries, and which of its revisions),
                        yaml or json: PackageRevision objects (porch.kpt.dev/v1alpha1), with
                        status.upstreamLock for a downstream package
`;

const FORMATS = ["table", "wide", "yaml", "json"] as const;
const WIDE_COLUMNS = ["UPSTREAM", "UPSTREAMREVISION"] as const;

export const getVerb: Verb = {
  name: "get",
  summary: "List package revisions (table, or PackageRevision objects with -o yaml|json).",
  usage: USAGE,
  flags: { name: "value", revision: "value", workspace: "value", output: "value" },
  async run(args, env) {
    const format = args.values.get("output") ?? "table";
    if (!(FORMATS as readonly string[]).includes(format)) {
      throw new UsageError(`unknown --output "${format}"; known: table, wide, yaml, json\n\n${USAGE}`);
    }
    const revisionFilter = intFlag(args, "revision", USAGE);
    const repo = await openVerbRepository("get", args, env);
    const step = env.progress.step(`Reading package revisions of ${repo.full}`);
    const state = await repo.load();
    step.done(`${state.revisions.length} found`);

    let revisions: PackageRevision[];
    let failed = false;
    if (args.positional.length > 0) {
      revisions = [];
      for (const name of args.positional) {
        try {
          revisions.push(findRevision(repo, state, name));
        } catch (e) {
          if (!(e instanceof RpkgError)) throw e;
          env.io.stderr(`Error: ${e.message}\n`);
          failed = true;
        }
      }
    } else {
      const pkg = args.values.get("name");
      const workspace = args.values.get("workspace");
      revisions = state.revisions.filter(
        (r) =>
          (pkg === undefined || r.package === pkg) &&
          (workspace === undefined || r.workspace === workspace) &&
          (revisionFilter === undefined || r.revision === revisionFilter),
      );
    }

    // Where each downstream revision comes from: one Kptfile read per revision, only when shown.
    const locks = format === "table" ? new Map() : await readUpstreamLocks(repo, revisions);
    if (format === "table" || format === "wide") {
      const wide =
        format === "wide"
          ? { columns: WIDE_COLUMNS, values: (r: PackageRevision) => upstreamColumns(repo, locks.get(r)) }
          : undefined;
      if (revisions.length === 0) {
        if (!failed) env.io.stderr(`No package revisions found in ${repo.full}.\n`);
      } else env.io.stdout(formatRevisionTable(repo.name, revisions, wide));
    } else {
      const objects = revisions.map((r) => packageRevisionObject(repo, r, locks.get(r)));
      const single = args.positional.length === 1 && objects.length === 1;
      const out = single ? objects[0] : listObject(objects);
      env.io.stdout(
        format === "json" ? `${JSON.stringify(out, null, 4)}\n` : stringify(out, { lineWidth: 0 }),
      );
    }
    return failed ? 1 : 0;
  },
};
