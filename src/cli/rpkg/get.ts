import { stringify } from "yaml";
import {
  type LabelRequirement,
  labelsMatch,
  parseLabelSelector,
  SelectorError,
} from "../../api/label-selector.js";
import type { PackageRevision } from "../../lifecycle/index.js";
import type { PorchTask, PublishInfo } from "../../lifecycle/kpt-trailer.js";
import { PorchError, RevisionNotFound } from "../../porch/errors.js";
import {
  checkFieldSelector,
  fieldsMatch,
  readsKptfile,
  repositorySelected,
  type SelectableRevision,
} from "../../porch/field-selectors.js";
import { findRevision, nameOf } from "../../porch/names.js";
import {
  LATEST_LABEL,
  listObject,
  type PackageMetadata,
  type PackageRevisionObject,
  packageRevisionObject,
} from "../../porch/objects.js";
import type { RevisionMetadata } from "../../porch/registrations.js";
import { openRepository, type RepoState, type Repository } from "../../porch/repository.js";
import { type FieldRequirement, parseFieldSelector } from "../../porch/selectors.js";
import type { RevisionUpstream } from "../../porch/upstream-lock.js";
import { executeGoTemplate, type GoTemplate, parseGoTemplate } from "../go-template.js";
import { UsageError } from "../io.js";
import { alignColumns, formatObjects, type ObjectFormat, parseObjectFormat } from "../kubectl-output.js";
import { withTimeout } from "../request-timeout.js";
import { intFlag, type ParsedArgs } from "./args.js";
import type { RpkgEnv } from "./env.js";
import { describeFailure, FlagRefusal, failureAdvice } from "./errors.js";
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
                        status.upstreamLock for a downstream package; custom-columns=HEADER:PATH,...
                        or jsonpath=TEMPLATE over those objects, as kubectl prints them
  --no-headers          no header line in a table or custom columns
  --show-kptfile        print the root Kptfile of the one named revision, as it is in git
  --field-selector SEL  only revisions whose fields match, as Porch selects them: spec.lifecycle,
                        spec.repository, spec.packageName, spec.revision, spec.workspaceName,
                        metadata.name, metadata.namespace, spec.packageMetadata.labels[KEY] (the
                        Kptfile's labels); FIELD=VALUE, FIELD==VALUE or FIELD!=VALUE, comma-joined
                        (all must hold). spec.repository=NAME reads only that repository.
  -l, --selector SEL    only revisions whose labels (rpkg label, and Porch's kpt.dev/latest-revision)
                        match a Kubernetes label selector: k=v, k==v, k!=v, 'k in (a,b)', 'k notin (a,b)',
                        k, !k, k>1, k<1, comma-joined
  --request-timeout D   how long one repository may take to answer (default 30s; 0: no limit)

kubectl's printing flags, as porchctl has them:
  -o name               packagerevision.porch.kpt.dev/NAME, one a line
  -o jsonpath=TEMPLATE  kubectl's JSONPath: {.a.b}, [0], [*], [?(@.f=='v')], {"text"}, {@},
                        {range PATH}...{end}
  -o go-template=TEMPLATE  Go's text/template, the subset scripts use: {{.field.path}}, {{$.items}},
                        {{range PIPE}}/{{if PIPE}}/{{with PIPE}} ... {{else}} ... {{end}}, printf (%s %v %d %q),
                        index, len, eq, ne, not, and, or, pipes, {{- -}} trimming
  --template TEMPLATE   the template of -o jsonpath or -o go-template
  --show-kind           names as packagerevision.porch.kpt.dev/NAME in the table
  --show-labels         a LABELS column: the revision's labels, k=v,...
  -L, --label-columns KEY[,KEY]  a column per label (repeatable), headed by the key's last part
  --sort-by PATH        sort by a JSONPath of the objects (.spec.revision, {.metadata.name}):
                        numbers as numbers, a revision without the field first
`;

const WIDE_COLUMNS = ["UPSTREAM", "UPSTREAMREVISION"] as const;

export const getVerb: Verb = {
  name: "get",
  summary: "List package revisions (table, or PackageRevision objects with -o yaml|json).",
  usage: USAGE,
  flags: {
    name: "value",
    revision: "value",
    workspace: "value",
    output: "value",
    "no-headers": "switch",
    "show-kptfile": "switch",
    "all-namespaces": "switch",
    "field-selector": "value",
    selector: "value",
    template: "value",
    "show-kind": "switch",
    "show-labels": "switch",
    "label-columns": "list",
    "sort-by": "value",
  },
  async run(args, env) {
    if (args.switches.has("show-kptfile")) return showKptfile(args, env);
    if (args.switches.has("all-namespaces"))
      throw new PorchError(
        "bad-request",
        "--all-namespaces is not supported: a namespace is a GitHub owner, and porchlight keeps no list of them",
        "list one namespace with --namespace=OWNER, or one repository with --repository=OWNER/REPO",
      );
    const form = outputForm(args);
    const format = form.kind === "table" || form.kind === "wide" ? form.kind : "objects";
    const revisionFilter = intFlag(args, "revision", USAGE);
    const selectors = readSelectors(args);
    const loaded = await loadRepositories(args, env, selectors.fields);
    const repos = loaded.map(({ repo }) => repo);
    const { repoOf, failed } = selectRevisions(args, env, loaded, revisionFilter, selectors.fields);
    const repoFor = (r: PackageRevision) => repoOf.get(r) as Repository;
    // objects show everything, and a sort may read any field of them
    const whole = format === "objects" || args.values.has("sort-by");
    const needs: Needs = {
      upstreams: format !== "table" || whole,
      tasks: whole,
      packageMetadata: whole || readsKptfile(selectors.fields),
      metadata:
        whole ||
        selectors.labels.length > 0 ||
        args.switches.has("show-labels") ||
        args.lists.has("label-columns"),
    };
    const details = await readDetails(needs, env, repos, [...repoOf.keys()], repoFor);
    const revisions = [...repoOf.keys()].filter(
      (r) =>
        fieldsMatch(
          selectors.fields.filter((f) => readsKptfile([f])),
          selectable(repoFor(r), r),
          details.packageMetadata.get(r)?.labels,
        ) && labelsMatch(selectors.labels, revisionLabels(r, details.metadata.get(r))),
    );
    const listing: Listing = { revisions, repoFor, ...details };
    const sortBy = args.values.get("sort-by");
    if (sortBy !== undefined) listing.revisions = sortRevisions(listing, sortBy);
    if (form.kind === "table" || form.kind === "wide") {
      if (revisions.length === 0) {
        const [only] = repos;
        if (!failed && only && repos.length === 1)
          env.io.stderr(`No package revisions found in ${only.full}.\n`);
      } else await printTable(args, env, listing, form.kind === "wide");
    } else printObjects(args, env, listing, form);
    return failed ? 1 : 0;
  },
};

/** The selectors `get` was given, checked before anything is read. */
function readSelectors(args: ParsedArgs): { fields: FieldRequirement[]; labels: LabelRequirement[] } {
  try {
    const fields = parseFieldSelector(args.values.get("field-selector") ?? "");
    const refused = checkFieldSelector(fields);
    if (refused) throw new FlagRefusal(refused);
    return { fields, labels: parseLabelSelector(args.values.get("selector") ?? "") };
  } catch (e) {
    if (e instanceof SelectorError) throw new FlagRefusal(e.message);
    throw e;
  }
}

/** A revision's fields as Porch's field selectors read them. */
export function selectable(repo: Repository, r: PackageRevision): SelectableRevision {
  return {
    name: nameOf(repo, r),
    namespace: repo.namespace,
    repository: repo.name,
    packageName: r.package,
    workspaceName: r.workspace,
    revision: r.revision,
    lifecycle: r.lifecycle,
  };
}

/** A revision's labels as its object shows them: its own, and Porch's latest-revision label. */
export function revisionLabels(
  r: PackageRevision,
  own: RevisionMetadata | undefined,
): Record<string, string> {
  return { ...own?.labels, ...(r.latest ? { [LATEST_LABEL]: "true" } : {}) };
}

/** What the output and the selectors need read besides the revisions themselves. */
export interface Needs {
  upstreams: boolean;
  tasks: boolean;
  packageMetadata: boolean;
  metadata: boolean;
}

/** A repository and its package revisions, as read. */
interface Loaded {
  repo: Repository;
  state: RepoState;
}

/** The revisions to print, each with its repository, and what the output form shows besides. */
export interface Listing {
  revisions: PackageRevision[];
  repoFor: (r: PackageRevision) => Repository;
  upstreams: Map<PackageRevision, RevisionUpstream>;
  tasks: Map<PackageRevision, PorchTask[]>;
  /** Who published each published revision and when, read with its tasks. */
  published: Map<PackageRevision, PublishInfo>;
  metadata: Map<PackageRevision, RevisionMetadata>;
  packageMetadata: Map<PackageRevision, PackageMetadata>;
}

/**
 * The repositories listed, each read: the one --repository names, else every registered one. In a
 * namespace's listing each has --request-timeout (default 30s) to answer (one named alone, only when the
 * timeout is set); in a namespace's listing, one that fails or does not answer in time is
 * reported on stderr and the others are listed (as Porch lists the repositories it can read), and each
 * registration porchlight cannot read (a git URL elsewhere) is reported the same way.
 */
async function loadRepositories(
  args: ParsedArgs,
  env: RpkgEnv,
  fields: readonly FieldRequirement[],
): Promise<Loaded[]> {
  const read = (
    what: string,
    open: (signal: AbortSignal | undefined) => Promise<Repository>,
    timeoutMs = env.timeoutMs,
  ) =>
    withTimeout(timeoutMs, what, async (signal) => {
      const repo = await open(signal);
      const step = env.progress.step(`Reading package revisions of ${repo.full}`);
      const state = await repo.load();
      step.done(`${state.revisions.length} found`);
      return { repo, state };
    });
  // Porch lists a whole namespace: with --namespace and no --repository, every registered repository
  if (!(env.registrations && env.registrations.size > 0 && !args.values.get("repository"))) {
    const named = args.values.get("repository") ?? "the repository";
    const bound = env.timeoutSet ? env.timeoutMs : undefined;
    return [
      await read(
        `repository ${named}`,
        (signal) => openVerbRepository("get", args, env, signal, true),
        bound,
      ),
    ];
  }
  for (const [name, reason] of env.elsewhere ?? [])
    if (repositorySelected(fields, name))
      env.io.stderr(`Warning: repository "${name}" is not listed: ${reason}\n`);
  const names = [...env.registrations.keys()].filter((n) => repositorySelected(fields, n));
  const settled = await Promise.allSettled(
    names.map((n) => read(`repository "${n}"`, (signal) => openRepository(env, n, "get", signal, true))),
  );
  return settled.flatMap((outcome, i) => {
    if (outcome.status === "fulfilled") return [outcome.value];
    const name = names[i] ?? "";
    env.io.stderr(
      `Warning: repository "${name}" is not listed: ${describeFailure(outcome.reason, env.registrations?.get(name)?.full ?? name)}\n`,
    );
    return [];
  });
}

/**
 * The revisions the arguments name, or else those the --name, --workspace and --revision filters keep,
 * each with its repository; a name not found is reported on stderr (`failed`) and the others still listed.
 */
function selectRevisions(
  args: ParsedArgs,
  env: RpkgEnv,
  loaded: readonly Loaded[],
  revisionFilter: number | undefined,
  fields: readonly FieldRequirement[],
): { repoOf: Map<PackageRevision, Repository>; failed: boolean } {
  // the requirements on the revision itself; those on its Kptfile wait for it to be read
  const own = fields.filter((f) => !readsKptfile([f]));
  const keep = (repo: Repository, r: PackageRevision) => fieldsMatch(own, selectable(repo, r), undefined);
  const repoOf = new Map<PackageRevision, Repository>();
  let failed = false;
  if (args.positional.length > 0) {
    for (const name of args.positional) {
      // none loaded: every registered repository failed or did not answer, as reported
      const where = loaded.find(({ repo }) => name.startsWith(`${repo.name}.`)) ?? loaded[0];
      try {
        if (!where) throw new RevisionNotFound(name, "no registered repository could be read");
        const found = findRevision(where.repo, where.state, name);
        if (keep(where.repo, found)) repoOf.set(found, where.repo);
      } catch (e) {
        if (!(e instanceof PorchError)) throw e;
        // kubectl's words for a name the server does not have
        env.io.stderr(
          e instanceof RevisionNotFound
            ? `Error: the server could not find the requested resource (get packagerevisions.porch.kpt.dev ${name}) \n`
            : `Error: ${e.message}\n`,
        );
        env.io.stderr(failureAdvice(e, env.verbose, env.io.isTTY));
        failed = true;
      }
    }
  } else {
    const pkg = args.values.get("name");
    const workspace = args.values.get("workspace");
    for (const { repo, state } of loaded)
      for (const r of state.revisions)
        if (
          (pkg === undefined || r.package === pkg) &&
          (workspace === undefined || r.workspace === workspace) &&
          (revisionFilter === undefined || r.revision === revisionFilter) &&
          keep(repo, r)
        )
          repoOf.set(r, repo);
  }
  return { repoOf, failed };
}

/**
 * Where each downstream revision comes from (one Kptfile read per revision), how each began
 * (spec.tasks), and each revision's own labels and annotations (one read of each namespace's
 * .porchlight): read only for the output forms that show them. What reads them (Kptfiles and their
 * merge, the namespace's registry) is loaded only then: porchctl's table, the listing a person types
 * most, starts without it.
 */
export async function readDetails(
  needs: Needs,
  env: RpkgEnv,
  repos: readonly Repository[],
  revisions: readonly PackageRevision[],
  repoFor: (r: PackageRevision) => Repository,
): Promise<Pick<Listing, "upstreams" | "tasks" | "published" | "metadata" | "packageMetadata">> {
  const upstreams = new Map<PackageRevision, RevisionUpstream>();
  const tasks = new Map<PackageRevision, PorchTask[]>();
  const published = new Map<PackageRevision, PublishInfo>();
  const metadata = new Map<PackageRevision, RevisionMetadata>();
  const packageMetadata = new Map<PackageRevision, PackageMetadata>();
  if (needs.upstreams || needs.tasks || needs.packageMetadata) {
    const { readHistories, readPackageMetadata, readUpstreams } = await import(
      "../../porch/upstream-lock.js"
    );
    for (const repo of repos) {
      const mine = revisions.filter((r) => repoFor(r) === repo);
      if (needs.upstreams) for (const [r, up] of await readUpstreams(repo, mine)) upstreams.set(r, up);
      if (needs.tasks) {
        const read = await readHistories(repo, mine);
        for (const [r, t] of read.tasks) tasks.set(r, t);
        for (const [r, p] of read.published) published.set(r, p);
      }
      if (needs.packageMetadata)
        for (const [r, m] of await readPackageMetadata(repo, mine)) packageMetadata.set(r, m);
    }
  }
  if (needs.metadata) {
    const { namespaceRevisionMetadata } = await import("../../porch/metadata.js");
    const namespaces = [...new Set(repos.map((r) => r.namespace))];
    const byNamespace = new Map(
      await Promise.all(
        namespaces.map(async (ns) => [ns, await namespaceRevisionMetadata(env, ns)] as const),
      ),
    );
    for (const r of revisions) {
      const repo = repoFor(r);
      const found = byNamespace.get(repo.namespace)?.get(nameOf(repo, r));
      if (found) metadata.set(r, found);
    }
  }
  return { upstreams, tasks, published, metadata, packageMetadata };
}

/** What `-o` (and `--template`) ask for: porchctl's table, or the objects in one of kubectl's forms. */
type OutputForm =
  | { kind: "table" | "wide" | "yaml" | "json" | "name" }
  | { kind: "format"; format: ObjectFormat }
  | { kind: "go-template"; template: GoTemplate };

const OUTPUTS =
  "table, wide, yaml, json, name, custom-columns=..., jsonpath=..., go-template=... (or jsonpath and go-template with --template=...)";

function outputForm(args: ParsedArgs): OutputForm {
  const output = args.values.get("output") ?? "table";
  const template = args.values.get("template");
  if (template !== undefined && output !== "jsonpath" && output !== "go-template" && output !== "table")
    throw new UsageError(`--template goes with -o jsonpath or -o go-template, not -o ${output}\n\n${USAGE}`);
  if (output === "go-template" || output.startsWith("go-template=")) {
    const text = output === "go-template" ? (template ?? "") : output.slice("go-template=".length);
    if (text === "") throw new UsageError("template format specified but no template given");
    return { kind: "go-template", template: parseGoTemplate(text) };
  }
  const objectFormat = parseObjectFormat(
    output === "jsonpath" || (output === "table" && template !== undefined)
      ? `jsonpath=${template ?? ""}`
      : output,
  );
  if (objectFormat) return { kind: "format", format: objectFormat };
  if (output === "table" || output === "wide" || output === "yaml" || output === "json" || output === "name")
    return { kind: output };
  throw new UsageError(`unknown --output "${output}"; known: ${OUTPUTS}\n\n${USAGE}`);
}

/** kubectl's kind prefix for `-o name` and `--show-kind`. */
const KIND = "packagerevision.porch.kpt.dev";

/**
 * porchctl's table (`wide` adds the upstream columns), with kubectl's decorations: `--show-kind` names
 * each revision with its kind, `-L KEY` adds a column per label (headed by the key's last part, upper
 * case), `--show-labels` a LABELS column (`k=v,…` by key, `<none>`).
 */
async function printTable(args: ParsedArgs, env: RpkgEnv, listing: Listing, wide: boolean): Promise<void> {
  const { revisions, repoFor, upstreams, metadata } = listing;
  const upstreamColumns = wide ? (await import("../../porch/upstream-lock.js")).upstreamColumns : undefined;
  const labelColumns = (args.lists.get("label-columns") ?? []).flatMap((l) =>
    l
      .split(",")
      .map((k) => k.trim())
      .filter(Boolean),
  );
  const showLabels = args.switches.has("show-labels");
  const header = [
    "NAME",
    "PACKAGE",
    "WORKSPACENAME",
    "REVISION",
    "LATEST",
    "LIFECYCLE",
    "REPOSITORY",
    ...(wide ? WIDE_COLUMNS : []),
    ...labelColumns.map((k) => (k.split("/").pop() ?? k).toUpperCase()),
    ...(showLabels ? ["LABELS"] : []),
  ];
  const rows = revisions.map((r) => {
    const repo = repoFor(r);
    const labels = revisionLabels(r, metadata.get(r));
    const formatted = Object.keys(labels)
      .sort()
      .map((k) => `${k}=${labels[k]}`)
      .join(",");
    return [
      `${args.switches.has("show-kind") ? `${KIND}/` : ""}${nameOf(repo, r)}`,
      r.package,
      r.workspace,
      String(r.revision),
      String(r.latest),
      r.lifecycle,
      repo.name,
      ...(upstreamColumns ? upstreamColumns(repo, upstreams.get(r)) : []),
      ...labelColumns.map((k) => labels[k] ?? ""),
      ...(showLabels ? [formatted || "<none>"] : []),
    ];
  });
  env.io.stdout(alignColumns(args.switches.has("no-headers") ? rows : [header, ...rows]));
}

/** The listing's revisions as PackageRevision objects, with what was read of them. */
export function objectsOf(listing: Listing): PackageRevisionObject[] {
  const { revisions, repoFor, upstreams, tasks, metadata, packageMetadata } = listing;
  return revisions.map((r) =>
    packageRevisionObject(repoFor(r), r, {
      upstreamLock: upstreams.get(r)?.lock,
      tasks: tasks.get(r),
      published: listing.published.get(r),
      metadata: metadata.get(r),
      packageMetadata: packageMetadata.get(r),
    }),
  );
}

/**
 * `--sort-by PATH` (a JSONPath, braces optional, as kubectl takes it): the revisions in the order of that
 * field of their objects — numbers as numbers, anything else as text; a revision without it first.
 */
function sortRevisions(listing: Listing, sortBy: string): PackageRevision[] {
  const expr = sortBy.startsWith("{") ? sortBy : `{${sortBy}}`;
  const format = parseObjectFormat(`jsonpath=${expr}`);
  if (format?.kind !== "jsonpath")
    throw new UsageError(`--sort-by "${sortBy}" is not a JSONPath such as .spec.revision`);
  const objects = objectsOf(listing);
  const keys = objects.map((o) => formatObjects(format, [o], { single: true }));
  const numeric = keys.every((k) => k === "" || /^-?\d+(\.\d+)?$/.test(k));
  const order = listing.revisions.map((r, i) => ({ r, key: keys[i] ?? "" }));
  order.sort((a, b) => {
    if (a.key === "" || b.key === "") return a.key === b.key ? 0 : a.key === "" ? -1 : 1;
    return numeric ? Number(a.key) - Number(b.key) : a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
  });
  return order.map((o) => o.r);
}

/**
 * The PackageRevision objects in one of kubectl's forms: custom columns or jsonpath, a go-template, one
 * `kind/name` a line (`-o name`), or YAML or JSON (one named revision alone, else a list).
 */
function printObjects(args: ParsedArgs, env: RpkgEnv, listing: Listing, form: OutputForm): void {
  const objects = objectsOf(listing);
  const single = args.positional.length === 1 && objects.length === 1;
  const list = listObject(objects);
  if (form.kind === "format")
    env.io.stdout(
      formatObjects(form.format, objects, { single, noHeaders: args.switches.has("no-headers"), list }),
    );
  else if (form.kind === "go-template")
    env.io.stdout(executeGoTemplate(form.template, single ? objects[0] : list));
  else if (form.kind === "name") env.io.stdout(objects.map((o) => `${KIND}/${o.metadata.name}\n`).join(""));
  else {
    const out = single ? objects[0] : list;
    env.io.stdout(
      form.kind === "json" ? `${JSON.stringify(out, null, 4)}\n` : stringify(out, { lineWidth: 0 }),
    );
  }
}

/** `--show-kptfile NAME`: the revision's root Kptfile, byte for byte, as porchctl prints it. */
async function showKptfile(args: ParsedArgs, env: RpkgEnv): Promise<number> {
  // porchctl's checks, in its order
  if (args.positional.length !== 1)
    throw new FlagRefusal("--show-kptfile requires exactly one package revision name as an argument");
  if (args.values.has("name") || args.values.has("revision") || args.values.has("workspace"))
    throw new FlagRefusal("--show-kptfile cannot be combined with --name, --revision, or --workspace");
  if (args.switches.has("all-namespaces"))
    throw new FlagRefusal("--show-kptfile cannot be combined with --all-namespaces");
  const name = args.positional[0] as string;
  const repo = await openVerbRepository("get", args, env);
  const rev = findRevision(repo, await repo.load(), name);
  const { KPTFILE_NAME } = await import("../../kpt/kptfile.js");
  const text = await repo.conn.port.getFile(`${repo.packageDir(rev.package)}/${KPTFILE_NAME}`, rev.sha);
  if (text === undefined)
    throw new PorchError("not-found", `package revision "${name}" does not contain a root Kptfile`);
  env.io.stdout(text);
  return 0;
}
