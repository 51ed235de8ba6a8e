/**
 * `npm run porch-api-e2e -- PORCH_CHECKOUT [--through=rpkg|api] [--test NAME]...`: Porch's API end-to-end
 * suite (PORCH_CHECKOUT/test/e2e/api/*_test.go) translated test by test to porchlight, run against
 * `porchlight repo` and `porchlight rpkg` on the embedded forge with the app serving it
 * (scripts/porch-forge.ts), or with `--through=api` its PackageRevision calls made on porchlight's Porch
 * API instead (ApiPorch below). Each test keeps the Go test's own steps, assertions and expected values;
 * only the client changes.
 *
 * The translation, stated once:
 * - a namespace is a GitHub owner: each test runs in an organization of its own (Porch's suite shares
 *   one namespace and deletes each test's registrations at its end, which comes to the same), its
 *   namespaces `-2`, `-3`, `-4` are organizations too;
 * - gitea is the forge: `porch-test` is reset after each test that registered it, `test-blueprints` is
 *   Porch's test-blueprints.bundle;
 * - Create/Update/Delete of a Repository is `repo register` (`--directory`, `--deployment`, `--branch`,
 *   `--create-branch`), `repo apply -f -` of the object `repo get -o json` gives, `repo unregister`;
 *   its Ready condition is `repo get NAME -o json`'s `status.conditions`;
 * - Get/List of PackageRevisions is `rpkg get [NAME] -o json` (field selectors `--field-selector`, label
 *   selectors `-l`); not found is a failing `get`;
 * - Create of a PackageRevision with an init task is `rpkg init` (`--description`, `--keywords`,
 *   `--site`), with a clone task `rpkg clone` (an upstreamRef by its name, a git upstream by URL with
 *   `--directory` and `--ref`), with an edit task `rpkg copy`, with an upgrade task `rpkg upgrade LOCAL
 *   --revision=N` (N: the new upstream's revision; the old upstream is the local revision's
 *   upstreamLock, as Porch's task names it); its metadata.labels and metadata.annotations are `rpkg
 *   label` and `rpkg annotate` of the new revision, its spec.packageMetadata a push of the Kptfile's
 *   metadata.labels and metadata.annotations;
 * - Update of spec.lifecycle: Proposed is `rpkg propose`, Published (approval) `rpkg approve`,
 *   DeletionProposed `rpkg propose-delete`, DeletionProposed back to Published `rpkg reject`; Update of
 *   metadata.labels/annotations is `rpkg label`/`rpkg annotate --overwrite` (removed keys `KEY-`);
 *   Update of spec.packageMetadata is a push of the Kptfile with those labels and annotations;
 * - Delete of a PackageRevision is `rpkg del`;
 * - PackageRevisionResources Get is `rpkg pull NAME DIR` (the files as a map), Update is `rpkg push NAME
 *   DIR` of that directory with the files changed; its status.renderStatus is the Kptfile's
 *   status.renderStatus and `Rendered` condition the push wrote (Err: the condition's message when it
 *   is False; ExitCode: the failing step's exit code);
 * - two clients at once are two `porchlight` commands started together: a nil error is exit 0, an error
 *   its stderr;
 * - RetriggerBackgroundJobForRepo (delete and recreate the Repository) is `repo unregister` and `repo
 *   apply -f -` of the object read before.
 * Not translated, because what they assert is Kubernetes' own machinery: see UNTRANSLATED below.
 * Not in `npm test`: it needs a copy of Porch's repository, which CI does not fetch.
 */
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { dirname, join, relative } from "node:path";
import { parse, parseDocument, stringify } from "yaml";
import { type PorchApiClient, startPorchApiClient } from "./porch-api-http.js";
import { type Outcome, type PorchStage, startPorchStage } from "./porch-forge.js";

const UNTRANSLATED: Record<string, string> = {
  TestMetricsEndpoint:
    "scrapes the Porch server's, controllers' and function runner's Prometheus endpoints in the cluster by their metric names",
  TestPackageRevisionGarbageCollection:
    "Kubernetes' garbage collector: ConfigMaps owned by a PackageRevision (ownerReferences) deleted with it, and the reverse",
  TestPackageRevisionFinalizers: "Kubernetes finalizers holding a PackageRevision's deletion",
  TestPodEvaluator:
    "the function runner's pods in porch-fn-system: a deleted pod replaced by one with another name suffix",
  TestPodEvaluatorSequentialParallel:
    "the function runner's pods running the sleep image in parallel, timed, then deleted",
  TestPodEvaluatorParallelExecution:
    "counts the function runner's running pods against its max-wait-list setting",
};

const REGISTRY = "ghcr.io/kptdev/krm-functions-catalog";
const LATEST = "kpt.dev/latest-revision";
const CONFLICT = "another request is already in progress";

// biome-ignore lint/suspicious/noExplicitAny: Porch's objects as JSON, read field by field as the Go tests read them
type Obj = any;

class Fatal extends Error {}

/** A Go test's `t`: Errorf records and goes on, Fatalf records and stops the test. */
class T {
  errors: string[] = [];
  errorf(msg: string): void {
    this.errors.push(msg);
  }
  fatalf(msg: string): never {
    this.errors.push(msg);
    throw new Fatal(msg);
  }
  check(ok: boolean, msg: string): void {
    if (!ok) this.errorf(msg);
  }
  require(ok: boolean, msg: string): void {
    if (!ok) this.fatalf(msg);
  }
  equal(want: unknown, got: unknown, what: string): void {
    if (JSON.stringify(sortKeys(want)) !== JSON.stringify(sortKeys(got)))
      this.errorf(`${what}: want ${JSON.stringify(want)}, got ${JSON.stringify(got)}`);
  }
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === "object")
    return Object.fromEntries(
      Object.entries(v as Record<string, unknown>)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([k, x]) => [k, sortKeys(x)]),
    );
  return v;
}

/** Porch's name of a new revision: `<repo>.<package, / as .>.<workspace>`. */
const prName = (repo: string, pkg: string, ws: string) => `${repo}.${pkg.replaceAll("/", ".")}.${ws}`;

interface Resources {
  name: string;
  /** rpkg: the directory pulled; the API: "" (its object is kept instead). */
  dir: string;
  files: Record<string, string>;
  /** the API: the PackageRevisionResources object read. */
  object?: Obj;
}

interface RegisterOpts {
  directory?: string;
  deployment?: boolean;
  branch?: string;
  createBranch?: boolean;
  namespace?: string;
}

/** The Go suite's client and helpers, each a porchlight command in the test's namespace. */
class Porch {
  usedPorchTest = false;
  constructor(
    readonly stage: PorchStage,
    readonly ns: string,
    readonly t: T,
  ) {}

  get porchTestUrl() {
    return `${this.stage.forge.url}/nephio/porch-test.git`;
  }
  get blueprintsUrl() {
    return `${this.stage.forge.url}/nephio/test-blueprints.git`;
  }

  run(args: string[], stdin?: string, ns = this.ns): Promise<Outcome> {
    return this.stage.porchlight([...args, `--namespace=${ns}`], stdin === undefined ? {} : { stdin });
  }

  async must(args: string[], stdin?: string, ns?: string): Promise<Outcome> {
    const o = await this.run(args, stdin, ns);
    if (o.exitCode !== 0)
      this.t.fatalf(`porchlight ${args.join(" ")}: exit ${o.exitCode}: ${o.stderr.trim()}`);
    return o;
  }

  /** RegisterGitRepositoryF: registered, and Ready. */
  async register(url: string, name: string, opts: RegisterOpts = {}): Promise<void> {
    if (url.includes("porch-test")) this.usedPorchTest = true;
    const ns = opts.namespace ?? this.ns;
    await this.stage.ensureNamespace(ns);
    const args = [
      "repo",
      "register",
      url,
      `--name=${name}`,
      "--description=Porch Test Repository Description",
    ];
    if (opts.directory) args.push(`--directory=${opts.directory}`);
    if (opts.deployment) args.push("--deployment");
    if (opts.branch) args.push(`--branch=${opts.branch}`);
    if (opts.createBranch) args.push("--create-branch");
    await this.must(args, undefined, ns);
    const repo = await this.repoGet(name, ns);
    const ready = (repo?.status?.conditions ?? []).find((c: Obj) => c.type === "Ready");
    if (ready?.status !== "True") this.t.fatalf(`repository ${name} is not Ready: ${JSON.stringify(ready)}`);
  }

  async repoGet(name: string, ns = this.ns): Promise<Obj | undefined> {
    const o = await this.run(["repo", "get", name, "-o", "json"], undefined, ns);
    return o.exitCode === 0 ? JSON.parse(o.stdout) : undefined;
  }

  /** Create or Update of a Repository object. */
  repoApply(obj: Obj, ns = this.ns): Promise<Outcome> {
    return this.run(["repo", "apply", "-f", "-"], stringify(obj), ns);
  }

  async repoDelete(name: string, ns = this.ns): Promise<Outcome> {
    return this.run(["repo", "unregister", name], undefined, ns);
  }

  /** GetF of a PackageRevision: undefined when it is not found. */
  async get(name: string): Promise<Obj | undefined> {
    const o = await this.run(["rpkg", "get", name, "-o", "json"]);
    return o.exitCode === 0 ? JSON.parse(o.stdout) : undefined;
  }

  async mustGet(name: string): Promise<Obj> {
    const pr = await this.get(name);
    if (!pr) this.t.fatalf(`PackageRevision ${this.ns}/${name} not found`);
    return pr;
  }

  async list(...selectors: string[]): Promise<Obj[]> {
    const o = await this.must(["rpkg", "get", "-o", "json", ...selectors]);
    const parsed = JSON.parse(o.stdout === "" ? '{"items":[]}' : o.stdout);
    return parsed.kind === "List" || parsed.items ? (parsed.items ?? []) : [parsed];
  }

  /** MustFindPackageRevision: by repository, package and revision number. */
  find(list: Obj[], repo: string, pkg: string, revision: number): Obj {
    const pr = list.find(
      (p) => p.spec.repository === repo && p.spec.packageName === pkg && p.spec.revision === revision,
    );
    if (!pr) this.t.fatalf(`Failed to find package ${repo}/${pkg}/${revision}`);
    return pr;
  }

  init(
    repo: string,
    pkg: string,
    ws: string,
    info: { description?: string; keywords?: string[]; site?: string } = {},
  ): Promise<Outcome> {
    const args = ["rpkg", "init", pkg, `--repository=${repo}`, `--workspace=${ws}`];
    if (info.description !== undefined) args.push(`--description=${info.description}`);
    if (info.keywords) args.push(`--keywords=${info.keywords.join(",")}`);
    if (info.site) args.push(`--site=${info.site}`);
    return this.run(args);
  }

  /** CreatePackageDraftF: init with the description `<package> description`. */
  async draft(repo: string, pkg: string, ws: string): Promise<string> {
    const o = await this.init(repo, pkg, ws, { description: `${pkg} description` });
    if (o.exitCode !== 0) this.t.fatalf(`init ${pkg}: ${o.stderr.trim()}`);
    return prName(repo, pkg, ws);
  }

  /** A clone task: an upstream revision by name, or a git upstream. */
  clone(
    repo: string,
    pkg: string,
    ws: string,
    source: string,
    git?: { ref: string; directory: string },
  ): Promise<Outcome> {
    const args = ["rpkg", "clone", source, pkg, `--repository=${repo}`, `--workspace=${ws}`];
    if (git) args.push(`--ref=${git.ref}`, `--directory=${git.directory}`);
    return this.run(args);
  }

  /** CreatePackageCloneF: a clone of test-blueprints at REF, DIRECTORY. */
  async cloneBlueprint(
    repo: string,
    pkg: string,
    ws: string,
    ref: string,
    directory: string,
  ): Promise<string> {
    const o = await this.clone(repo, pkg, ws, this.blueprintsUrl, { ref, directory });
    if (o.exitCode !== 0) this.t.fatalf(`clone ${pkg}: ${o.stderr.trim()}`);
    return prName(repo, pkg, ws);
  }

  copy(source: string, ws: string): Promise<Outcome> {
    return this.run(["rpkg", "copy", source, `--workspace=${ws}`]);
  }

  lifecycle(
    verb: "propose" | "approve" | "propose-delete" | "reject" | "del",
    name: string,
  ): Promise<Outcome> {
    return this.run(["rpkg", verb, name]);
  }

  async mustLifecycle(verb: "propose" | "approve" | "propose-delete" | "reject" | "del", name: string) {
    const o = await this.lifecycle(verb, name);
    if (o.exitCode !== 0) this.t.fatalf(`rpkg ${verb} ${name}: ${o.stderr.trim()}`);
  }

  /** proposeAndPublish. */
  async publish(name: string): Promise<Obj> {
    await this.mustLifecycle("propose", name);
    await this.mustLifecycle("approve", name);
    return this.mustGet(name);
  }

  /** PackageRevisionResources Get: the revision's files. */
  async resources(name: string): Promise<Resources> {
    const dir = join(mkdtempSync(join(this.stage.work, "prr-")), "pkg");
    await this.must(["rpkg", "pull", name, dir]);
    const files: Record<string, string> = {};
    const walk = (d: string) => {
      for (const e of readdirSync(d)) {
        const p = join(d, e);
        if (statSync(p).isDirectory()) walk(p);
        else if (e !== ".KptRevisionMetadata") files[relative(dir, p)] = readFileSync(p, "utf8");
      }
    };
    walk(dir);
    return { name, dir, files };
  }

  /** PackageRevisionResources Update: the files written over the pulled directory, pushed. */
  async pushResources(r: Resources): Promise<Outcome> {
    const dir = join(mkdtempSync(join(this.stage.work, "push-")), "pkg");
    cpSync(r.dir, dir, { recursive: true });
    for (const [name, text] of Object.entries(r.files)) {
      const p = join(dir, name);
      mkdirSync(dirname(p), { recursive: true });
      writeFileSync(p, text);
    }
    return this.run(["rpkg", "push", r.name, dir]);
  }

  /** An edit task of SOURCE making a revision of REPO/PKG; rpkg copy cannot name them (undefined). */
  editAs(_source: string, _repo: string, _pkg: string, _ws: string): Promise<Outcome | undefined> {
    return Promise.resolve(undefined);
  }

  /** An upgrade task: LOCAL moved to the upstream revision `to` (rpkg: by its number). */
  upgrade(local: string, ws: string, to: Obj): Promise<Outcome> {
    return this.run(["rpkg", "upgrade", local, `--workspace=${ws}`, `--revision=${to.spec.revision}`]);
  }

  /** metadata.labels (or annotations) added to a revision's. */
  async addMeta(kind: "label" | "annotate", name: string, values: Record<string, string>): Promise<void> {
    await this.must(["rpkg", kind, name, ...Object.entries(values).map(([k, v]) => `${k}=${v}`)]);
  }

  /** The revisions of namespace NS; none when it cannot be listed. */
  async listIn(ns: string): Promise<Obj[]> {
    const o = await this.run(["rpkg", "get", "-o", "json"], undefined, ns);
    return o.exitCode === 0 ? (JSON.parse(o.stdout || '{"items":[]}').items ?? []) : [];
  }

  /** The renderStatus of the revision's last render, from its Kptfile. */
  async renderStatus(name: string): Promise<{ err: string; exitCode: number }> {
    const kf = parse((await this.resources(name)).files.Kptfile ?? "") ?? {};
    const cond = (kf.status?.conditions ?? []).find((c: Obj) => c.type === "Rendered");
    const failed = (kf.status?.renderStatus?.mutationSteps ?? []).find((s: Obj) => (s.exitCode ?? 0) !== 0);
    return {
      err: cond?.status === "False" ? (cond.message ?? "failed") : "",
      exitCode: failed?.exitCode ?? 0,
    };
  }

  /** Update of a PackageRevision's metadata.labels (or annotations): the keys set, the others removed. */
  async setMeta(
    kind: "label" | "annotate",
    name: string,
    want: Record<string, string>,
    have: Record<string, string>,
  ) {
    const args = Object.entries(want).map(([k, v]) => `${k}=${v}`);
    for (const k of Object.keys(have))
      if (!(k in want) && k !== LATEST && !k.startsWith("porchlight.dev/")) args.push(`${k}-`);
    if (args.length === 0) return;
    await this.must(["rpkg", kind, name, ...args, "--overwrite"]);
  }
}

const PR = "porch.kpt.dev/v1alpha1";

/**
 * `--through=api`: the same client, each PackageRevision and PackageRevisionResources call made on
 * porchlight's Porch API as Porch's Go tests make it (Create with spec.tasks, Update of spec.lifecycle
 * and of metadata, the approval subresource, Delete, Get and List with selectors); an answer other
 * than 2xx is a failed call whose stderr is the Status's message. Repositories stay `porchlight repo`.
 */
class ApiPorch extends Porch {
  constructor(
    stage: PorchStage,
    ns: string,
    t: T,
    readonly api: PorchApiClient,
  ) {
    super(stage, ns, t);
  }

  path(kind: "packagerevisions" | "packagerevisionresources", name = "", ns = this.ns): string {
    return `/apis/${PR}/namespaces/${ns}/${kind}${name ? `/${name}` : ""}`;
  }

  /** One request, the stage's work settled after, as an Outcome (stdout: the answer's JSON). */
  async call(method: string, path: string, body?: unknown): Promise<Outcome> {
    const a = await this.api.call(method, path, body);
    await this.stage.settle();
    const ok = a.status >= 200 && a.status < 300;
    return {
      exitCode: ok ? 0 : 1,
      stdout: ok ? JSON.stringify(a.body) : "",
      stderr: ok ? "" : `${a.status}: ${a.body?.message ?? JSON.stringify(a.body)}\n`,
    };
  }

  override async get(name: string): Promise<Obj | undefined> {
    const o = await this.call("GET", this.path("packagerevisions", name));
    return o.exitCode === 0 ? JSON.parse(o.stdout) : undefined;
  }

  override async list(...selectors: string[]): Promise<Obj[]> {
    const query = new URLSearchParams();
    for (let i = 0; i < selectors.length; i += 2)
      query.set(selectors[i] === "-l" ? "labelSelector" : "fieldSelector", selectors[i + 1] ?? "");
    const q = query.size > 0 ? `?${query}` : "";
    const o = await this.call("GET", `${this.path("packagerevisions")}${q}`);
    if (o.exitCode !== 0) this.t.fatalf(`list packagerevisions${q}: ${o.stderr.trim()}`);
    return JSON.parse(o.stdout).items ?? [];
  }

  override async listIn(ns: string): Promise<Obj[]> {
    const o = await this.call("GET", this.path("packagerevisions", "", ns));
    return o.exitCode === 0 ? (JSON.parse(o.stdout).items ?? []) : [];
  }

  create(repo: string, pkg: string, ws: string, task: Obj): Promise<Outcome> {
    return this.call("POST", this.path("packagerevisions"), {
      apiVersion: PR,
      kind: "PackageRevision",
      metadata: { namespace: this.ns },
      spec: { packageName: pkg, repository: repo, workspaceName: ws, lifecycle: "Draft", tasks: [task] },
    });
  }

  override init(
    repo: string,
    pkg: string,
    ws: string,
    info: { description?: string; keywords?: string[]; site?: string } = {},
  ): Promise<Outcome> {
    return this.create(repo, pkg, ws, { type: "init", init: info });
  }

  override clone(
    repo: string,
    pkg: string,
    ws: string,
    source: string,
    git?: { ref: string; directory: string },
  ): Promise<Outcome> {
    const upstreamRef = git
      ? { type: "git", git: { repo: source, ref: git.ref, directory: git.directory } }
      : { upstreamRef: { name: source } };
    return this.create(repo, pkg, ws, { type: "clone", clone: { upstreamRef } });
  }

  /** An edit task: a new revision of SOURCE's package, in its repository. */
  override async copy(source: string, ws: string): Promise<Outcome> {
    const pr = await this.get(source);
    if (!pr) return { exitCode: 1, stdout: "", stderr: `${source} not found\n` };
    return this.create(pr.spec.repository, pr.spec.packageName, ws, {
      type: "edit",
      edit: { sourceRef: { name: source } },
    });
  }

  override editAs(source: string, repo: string, pkg: string, ws: string): Promise<Outcome> {
    return this.create(repo, pkg, ws, { type: "edit", edit: { sourceRef: { name: source } } });
  }

  override async upgrade(local: string, ws: string, to: Obj): Promise<Outcome> {
    const pr = await this.get(local);
    if (!pr) return { exitCode: 1, stdout: "", stderr: `${local} not found\n` };
    return this.create(pr.spec.repository, pr.spec.packageName, ws, {
      type: "upgrade",
      upgrade: {
        newUpstreamRef: { name: to.metadata.name },
        localPackageRevisionRef: { name: local },
      },
    });
  }

  /** Update of spec.lifecycle (Published: through the approval subresource); del: Delete. */
  override async lifecycle(
    verb: "propose" | "approve" | "propose-delete" | "reject" | "del",
    name: string,
  ): Promise<Outcome> {
    const path = this.path("packagerevisions", name);
    if (verb === "del") return this.call("DELETE", path);
    const got = await this.call("GET", path);
    if (got.exitCode !== 0) return got;
    const pr = JSON.parse(got.stdout);
    const from = pr.spec.lifecycle;
    const to = {
      propose: "Proposed",
      approve: "Published",
      "propose-delete": "DeletionProposed",
      reject: from === "DeletionProposed" ? "Published" : "Draft",
    }[verb];
    pr.spec.lifecycle = to;
    const viaApproval = verb === "approve" || (verb === "reject" && from === "Proposed");
    return this.call("PUT", viaApproval ? `${path}/approval` : path, pr);
  }

  override async resources(name: string): Promise<Resources> {
    const o = await this.call("GET", this.path("packagerevisionresources", name));
    if (o.exitCode !== 0) this.t.fatalf(`get packagerevisionresources ${name}: ${o.stderr.trim()}`);
    const prr = JSON.parse(o.stdout);
    const files: Record<string, string> = { ...(prr.spec?.resources ?? {}) };
    delete files[".KptRevisionMetadata"];
    return { name, dir: "", files, object: prr };
  }

  override pushResources(r: Resources): Promise<Outcome> {
    const prr = structuredClone(r.object);
    prr.spec.resources = { ...prr.spec.resources, ...r.files };
    return this.call("PUT", this.path("packagerevisionresources", r.name), prr);
  }

  override async setMeta(
    kind: "label" | "annotate",
    name: string,
    want: Record<string, string>,
    have: Record<string, string>,
  ) {
    const pr = await this.mustGet(name);
    const field = kind === "label" ? "labels" : "annotations";
    const current: Record<string, string> = pr.metadata[field] ?? {};
    for (const k of Object.keys(have)) if (!(k in want) && k !== LATEST) delete current[k];
    pr.metadata[field] = { ...current, ...want };
    const o = await this.call("PUT", this.path("packagerevisions", name), pr);
    if (o.exitCode !== 0) this.t.fatalf(`update ${name}'s ${field}: ${o.stderr.trim()}`);
  }

  override async addMeta(kind: "label" | "annotate", name: string, values: Record<string, string>) {
    const pr = await this.mustGet(name);
    const field = kind === "label" ? "labels" : "annotations";
    pr.metadata[field] = { ...(pr.metadata[field] ?? {}), ...values };
    const o = await this.call("PUT", this.path("packagerevisions", name), pr);
    if (o.exitCode !== 0) this.t.fatalf(`update ${name}'s ${field}: ${o.stderr.trim()}`);
  }
}

/** The porchlight-computed annotations rpkg get adds (ref, commit, pull request), left out as Porch has none. */
const ownAnnotations = (pr: Obj): Record<string, string> =>
  Object.fromEntries(
    Object.entries(pr?.metadata?.annotations ?? {}).filter(([k]) => !k.startsWith("porchlight.dev/")),
  ) as Record<string, string>;
const labelsOf = (pr: Obj): Record<string, string> => ({ ...(pr?.metadata?.labels ?? {}) });

/** ValidateLabelsAndAnnos. */
async function validateLabelsAndAnnos(
  p: Porch,
  name: string,
  labels: Record<string, string>,
  annos: Record<string, string>,
) {
  const pr = await p.mustGet(name);
  const gotLabels = labelsOf(pr);
  const gotAnnos = ownAnnotations(pr);
  if (Object.keys(labels).length > 0 || Object.keys(gotLabels).length > 0)
    p.t.equal(labels, gotLabels, `${name} labels`);
  if (Object.keys(annos).length > 0 || Object.keys(gotAnnos).length > 0)
    p.t.equal(annos, gotAnnos, `${name} annotations`);
}

function kptfileOf(r: Resources, t: T): Obj {
  const text = r.files.Kptfile;
  if (text === undefined) t.fatalf(`Kptfile not found in ${r.name}'s resources`);
  return parse(text);
}

/** AddMutator (and SaveKptfileF of a mutator list): appended to the Kptfile's pipeline. */
function addMutator(r: Resources, t: T, fn: Record<string, unknown>): void {
  if (r.files.Kptfile === undefined) t.fatalf("Kptfile not found in resources");
  const doc = parseDocument(r.files.Kptfile as string);
  const mutators = doc.getIn(["pipeline", "mutators"]);
  if (mutators) doc.addIn(["pipeline", "mutators"], doc.createNode(fn));
  else doc.setIn(["pipeline", "mutators"], doc.createNode([fn]));
  r.files.Kptfile = doc.toString();
}

function setKptfileMeta(
  r: Resources,
  t: T,
  path: "labels" | "annotations",
  values: Record<string, string>,
  replace = false,
): void {
  if (r.files.Kptfile === undefined) t.fatalf("Kptfile not found in resources");
  const doc = parseDocument(r.files.Kptfile as string);
  const current = replace
    ? {}
    : ((doc.getIn(["metadata", path]) as { toJSON(): Record<string, string> } | undefined)?.toJSON() ?? {});
  doc.setIn(["metadata", path], doc.createNode({ ...current, ...values }));
  r.files.Kptfile = doc.toString();
}

/** assertConcurrentResults: one succeeded, one failed with Porch's conflict. */
function assertConcurrent(t: T, results: Outcome[], op: string) {
  t.check(
    results.some((r) => r.exitCode === 0),
    `expected one ${op} request to succeed - results: ${JSON.stringify(results.map((r) => r.stderr.trim()))}`,
  );
  t.check(
    results.some((r) => r.exitCode !== 0 && r.stderr.includes(CONFLICT)),
    `expected one ${op} request to fail with a conflict - results: ${JSON.stringify(results.map((r) => `${r.exitCode} ${r.stderr.trim()}`))}`,
  );
}

const CONFIGMAP = `apiVersion: v1
kind: ConfigMap
metadata:
  name: update-resources-configmap
  namespace: example
data:
  value: Update Resources and Render
`;

type Test = (p: Porch, t: T) => Promise<void>;

// ---- rpkg_lifecycle_test.go ----

async function runLifecycle(
  p: Porch,
  t: T,
  tc: {
    repo: string;
    pkg: string;
    ws: string;
    target: "Published" | "Proposed" | "Draft";
    del: boolean;
    validate?: (name: string, pr: Obj) => Promise<void>;
  },
) {
  await p.register(p.porchTestUrl, tc.repo);
  const name = await p.draft(tc.repo, tc.pkg, tc.ws);
  await p.mustGet(name);
  let pr: Obj;
  if (tc.target === "Published") pr = await p.publish(name);
  else if (tc.target === "Proposed") {
    await p.mustLifecycle("propose", name);
    pr = await p.mustGet(name);
  } else pr = await p.mustGet(name);
  if (tc.validate) await tc.validate(name, pr);
  if (tc.del) {
    if (tc.target === "Published") await p.mustLifecycle("propose-delete", name);
    const d = await p.lifecycle("del", name);
    t.check(d.exitCode === 0, `delete ${name}: ${d.stderr.trim()}`);
    t.check((await p.get(name)) === undefined, `${name} still exists after delete`);
  }
}

const TESTS: Record<string, Test> = {
  async TestBasicLifecycle(p, t) {
    const cases = [
      {
        repo: "lifecycle",
        pkg: "test-package",
        ws: "workspace",
        target: "Published" as const,
        del: false,
        validate: async (_n: string, pr: Obj) =>
          t.check(pr.spec.revision === 1, `Expected revision 1, got ${pr.spec.revision}`),
      },
      {
        repo: "delete-draft",
        pkg: "test-delete-draft",
        ws: "test-workspace",
        target: "Draft" as const,
        del: true,
      },
      {
        repo: "delete-proposed",
        pkg: "test-delete-proposed",
        ws: "workspace",
        target: "Proposed" as const,
        del: true,
      },
      {
        repo: "delete-final",
        pkg: "test-delete-final",
        ws: "workspace",
        target: "Published" as const,
        del: true,
        validate: async (name: string) => {
          await p.lifecycle("del", name); // DeleteL: a published revision is not deleted
          await p.mustGet(name);
        },
      },
    ];
    for (const tc of cases) {
      await runLifecycle(p, t, tc);
      await p.repoDelete(tc.repo);
      await p.stage.recreatePorchTest();
    }
  },

  async TestProposeDeleteAndUndo(p, t) {
    const repo = "test-propose-delete-and-undo";
    await p.register(p.porchTestUrl, repo);
    const name = await p.draft(repo, repo, "workspace");
    await p.mustGet(name);
    await p.publish(name);
    await p.mustGet(name);
    await p.find(await p.list(), repo, repo, -1);
    for (const pr of await p.list()) {
      const n = pr.metadata.name;
      await p.mustLifecycle("propose-delete", n);
      await p.mustLifecycle("reject", n);
      await p.lifecycle("del", n); // DeleteL
      await p.mustGet(n);
      await p.mustLifecycle("propose-delete", n);
      const d = await p.lifecycle("del", n);
      t.check(d.exitCode === 0, `revision ${pr.spec.revision}: delete ${n}: ${d.stderr.trim()}`);
      t.check((await p.get(n)) === undefined, `revision ${pr.spec.revision}: ${n} still exists`);
    }
  },

  async TestDeleteAndRecreate(p, t) {
    const repo = "delete-and-recreate";
    const pkg = "test-delete-and-recreate";
    await p.register(p.porchTestUrl, repo);
    const name = await p.draft(repo, pkg, "work");
    await p.mustGet(name);
    await p.publish(name);
    await p.mustGet(name);
    const main = p.find(await p.list(), repo, pkg, -1);
    await p.mustLifecycle("propose-delete", name);
    const d1 = await p.lifecycle("del", name);
    t.check(d1.exitCode === 0, `delete ${name}: ${d1.stderr.trim()}`);
    t.check((await p.get(name)) === undefined, `${name} still exists`);
    await p.mustLifecycle("propose-delete", main.metadata.name);
    const d2 = await p.lifecycle("del", main.metadata.name);
    t.check(d2.exitCode === 0, `delete ${main.metadata.name}: ${d2.stderr.trim()}`);
    t.check((await p.get(main.metadata.name)) === undefined, `${main.metadata.name} still exists`);
    const again = await p.draft(repo, pkg, "work");
    const pr = await p.mustGet(again);
    const inits = (pr.spec.tasks ?? []).filter((x: Obj) => x.type === "init").length;
    t.check(inits <= 1, "found two init tasks in recreated package revision");
  },

  async TestDeleteFromMain(p, t) {
    const repo = "delete-main";
    const first = "test-delete-main-first";
    const second = "test-delete-main-second";
    await p.register(p.porchTestUrl, repo);
    const n1 = await p.draft(repo, first, "workspace");
    await p.mustGet(n1);
    await p.publish(n1);
    await p.mustGet(n1);
    const n2 = await p.draft(repo, second, "workspace");
    await p.mustGet(n2);
    await p.publish(n2);
    await p.mustGet(n2);
    const list = await p.list();
    const m1 = p.find(list, repo, first, -1).metadata.name;
    const m2 = p.find(list, repo, second, -1).metadata.name;
    await p.mustLifecycle("propose-delete", m1);
    await p.mustLifecycle("propose-delete", m2);
    for (const m of [m1, m2]) {
      const d = await p.lifecycle("del", m);
      t.check(d.exitCode === 0, `delete ${m}: ${d.stderr.trim()}`);
    }
    for (const pr of await p.list()) {
      await p.mustLifecycle("propose-delete", pr.metadata.name);
      const d = await p.lifecycle("del", pr.metadata.name);
      t.check(d.exitCode === 0, `delete ${pr.metadata.name}: ${d.stderr.trim()}`);
    }
  },

  async TestLatestVersionOnDelete(p, t) {
    const repo = "test-latest-on-delete-repository";
    const pkg = "test-latest-on-delete-package";
    await p.register(p.porchTestUrl, repo);
    const n1 = await p.draft(repo, pkg, "test-latest-on-delete-workspace-v1");
    await p.publish(n1);
    t.check(labelsOf(await p.mustGet(n1))[LATEST] === "true", `Expected PR ${n1} to have label ${LATEST}`);
    const c = await p.copy(n1, "test-latest-on-delete-workspace-v2");
    if (c.exitCode !== 0) t.fatalf(`edit of ${n1}: ${c.stderr.trim()}`);
    const n2 = prName(repo, pkg, "test-latest-on-delete-workspace-v2");
    await p.publish(n2);
    t.check(!(LATEST in labelsOf(await p.mustGet(n1))), `Expected PR ${n1} not to have label ${LATEST}`);
    t.check(labelsOf(await p.mustGet(n2))[LATEST] === "true", `Expected PR ${n2} to have label ${LATEST}`);
    await p.mustLifecycle("propose-delete", n2);
    await p.mustLifecycle("del", n2);
    t.check(
      labelsOf(await p.mustGet(n1))[LATEST] === "true",
      `Expected PR ${n1} to have label ${LATEST} after v2's deletion`,
    );
    await p.mustLifecycle("propose-delete", n1);
    await p.mustLifecycle("del", n1);
    const main = await p.list(
      "--field-selector",
      `spec.repository=${repo},spec.packageName=${pkg},spec.revision=-1`,
    );
    if (main.length !== 1) t.fatalf(`want one PackageRevision ${repo}/${pkg}/-1, got ${main.length}`);
    t.check(
      !(LATEST in labelsOf(main[0])),
      `Expected PR ${main[0].metadata.name} not to have label ${LATEST}`,
    );
  },

  async TestSubfolderPackageRevisionIncrementation(p, t) {
    const repo = "lifecycle";
    const sub = "repo-in-subfolder";
    const subPkg = "random/package/folder/test-package";
    await p.register(p.porchTestUrl, repo, { branch: "subfolder", createBranch: true });
    const n1 = await p.draft(repo, subPkg, "workspace");
    const pr1 = await p.publish(n1);
    t.equal("Published", pr1.spec.lifecycle, "lifecycle");
    t.equal(1, pr1.spec.revision, "revision");
    const c1 = await p.copy(n1, "workspace2");
    if (c1.exitCode !== 0) t.fatalf(`edit ${n1}: ${c1.stderr.trim()}`);
    const pr2 = await p.publish(prName(repo, subPkg, "workspace2"));
    t.equal("Published", pr2.spec.lifecycle, "lifecycle");
    t.equal(2, pr2.spec.revision, "revision");
    await p.repoDelete(repo);
    await p.register(p.porchTestUrl, sub, { directory: "random/repo/folder", branch: "subfolder" });
    const n3 = await p.draft(sub, "test-package", "workspace");
    const pr3 = await p.publish(n3);
    t.equal("Published", pr3.spec.lifecycle, "lifecycle");
    t.equal(1, pr3.spec.revision, "revision");
    const c2 = await p.copy(n3, "workspace2");
    if (c2.exitCode !== 0) t.fatalf(`edit ${n3}: ${c2.stderr.trim()}`);
    const pr4 = await p.publish(prName(sub, "test-package", "workspace2"));
    t.equal("Published", pr4.spec.lifecycle, "lifecycle");
    t.equal(2, pr4.spec.revision, "revision");
  },

  // ---- rpkg_clone_test.go ----

  async TestCloneFromUpstream(p, t) {
    await p.register(p.blueprintsUrl, "test-blueprints");
    const list = await p.list();
    const placeholder = list.find(
      (x) =>
        x.spec.repository === "test-blueprints" &&
        x.spec.packageName === "basens" &&
        x.spec.workspaceName === "main" &&
        x.spec.revision === -1,
    );
    if (!placeholder) t.fatalf("Failed to find package test-blueprints/basens/main/-1");
    const real = p.find(list, "test-blueprints", "basens", 1);
    await p.register(p.porchTestUrl, "porch-test");
    const bad = await p.clone("porch-test", "istions", "test-workspace", placeholder.metadata.name);
    t.check(
      bad.exitCode !== 0 && bad.stderr.includes("placeholder package revision"),
      `Expected error cloning from the placeholder package revision, got: ${bad.stderr.trim()}`,
    );
    const ok = await p.clone("porch-test", "istions", "test-workspace", real.metadata.name);
    if (ok.exitCode !== 0) t.fatalf(`clone: ${ok.stderr.trim()}`);
    const kf = kptfileOf(await p.resources(prName("porch-test", "istions", "test-workspace")), t);
    validateClonedKptfile(t, kf, "istions", p.blueprintsUrl);
  },

  async TestCloneIntoDeploymentRepository(p, t) {
    await p.register(p.porchTestUrl, "porch-test", { deployment: true });
    await p.register(p.blueprintsUrl, "test-blueprints");
    const list = await p.list();
    const up = list.find(
      (x) =>
        x.spec.repository === "test-blueprints" &&
        x.spec.packageName === "basens" &&
        x.spec.revision === 1 &&
        x.spec.workspaceName === "v1",
    );
    if (!up) t.fatalf("Failed to find package test-blueprints/basens/v1/1");
    const o = await p.clone(
      "porch-test",
      "istions-deployment",
      "clone-deployment-workspace",
      up.metadata.name,
    );
    if (o.exitCode !== 0) t.fatalf(`clone: ${o.stderr.trim()}`);
    const r = await p.resources(prName("porch-test", "istions-deployment", "clone-deployment-workspace"));
    validateClonedKptfile(t, kptfileOf(r, t), "istions-deployment", p.blueprintsUrl);
    const ctx = r.files["package-context.yaml"];
    if (ctx === undefined) t.fatalf("package-context.yaml not found among the package's resources");
    const cm = parse(ctx ?? "");
    t.check(
      cm?.metadata?.name === "kptfile.kpt.dev",
      `package context name: got ${cm?.metadata?.name}, want kptfile.kpt.dev`,
    );
    t.check(
      cm?.data?.name === "istions-deployment",
      `package context 'data.name': got ${cm?.data?.name}, want istions-deployment`,
    );
  },

  async TestCloneLeadingSlash(p) {
    await p.register(p.porchTestUrl, "clone-ls");
    const name = await p.cloneBlueprint("clone-ls", "test-clone-ls", "workspace", "basens/v1", "/basens");
    await p.mustGet(name);
  },

  async TestPackageUpgrade(p, t) {
    await p.register(p.blueprintsUrl, "test-blueprints");
    await p.register(p.porchTestUrl, "package-upgrade");
    const list = await p.list();
    const v1 = p.find(list, "test-blueprints", "basens", 1);
    const v2 = p.find(list, "test-blueprints", "basens", 2);
    const c = await p.clone("package-upgrade", "testns", "test-workspace", v1.metadata.name);
    if (c.exitCode !== 0) t.fatalf(`clone: ${c.stderr.trim()}`);
    const name = prName("package-upgrade", "testns", "test-workspace");
    const r = await p.resources(name);
    r.files["config-map.yaml"] = CONFIGMAP;
    const u = await p.pushResources(r);
    if (u.exitCode !== 0) t.fatalf(`update: ${u.stderr.trim()}`);
    await p.publish(name);
    const up = await p.upgrade(name, "test-workspace-upgrade", v2);
    if (up.exitCode !== 0) t.fatalf(`upgrade: ${up.stderr.trim()}`);
    const upName = prName("package-upgrade", "testns", "test-workspace-upgrade");
    const rr = await p.resources(upName);
    t.check("resourcequota.yaml" in rr.files, "Updated package should contain 'resourcequota.yaml` file");
    await p.publish(upName);
    const main = p.find(list, "test-blueprints", "basens", -1);
    const toMain = await p.upgrade(upName, "test-workspace-main-upgrade", main);
    t.check(
      toMain.exitCode !== 0 && toMain.stderr.includes("placeholder package revision"),
      `Expected error upgrading to the placeholder package revision, got: ${toMain.stderr.trim()}`,
    );
    const ofMain = await p.upgrade(main.metadata.name, "test-workspace-main-upgrade", v2);
    t.check(
      ofMain.exitCode !== 0 && ofMain.stderr.includes("placeholder package revision"),
      `Expected error upgrading the placeholder package revision, got: ${ofMain.stderr.trim()}`,
    );
  },

  // ---- rpkg_init_test.go ----

  async TestInitEmptyPackage(p, t) {
    await p.register(p.porchTestUrl, "init-empty");
    const name = await p.draft("init-empty", "empty-package", "test-workspace");
    const kf = kptfileOf(await p.resources(name), t);
    t.equal("empty-package", kf.metadata?.name, "Package name");
    t.equal({ description: "empty-package description" }, kf.info, "package info");
  },

  async TestInitTaskPackage(p, t) {
    await p.register(p.porchTestUrl, "init-task");
    const o = await p.init("init-task", "new-package", "test-workspace", {
      description: "New Package",
      keywords: ["test"],
      site: "https://kpt.dev/new-package",
    });
    if (o.exitCode !== 0) t.fatalf(`init: ${o.stderr.trim()}`);
    const kf = kptfileOf(await p.resources(prName("init-task", "new-package", "test-workspace")), t);
    t.equal("new-package", kf.metadata?.name, "Package name");
    t.equal(
      { site: "https://kpt.dev/new-package", description: "New Package", keywords: ["test"] },
      kf.info,
      "package info",
    );
  },

  // ---- rpkg_edit_test.go ----

  async TestEditPackageRevision(p, t) {
    const repo = "edit-test";
    await p.register(p.porchTestUrl, repo);
    const o = await p.init(repo, "simple-package", "workspace");
    if (o.exitCode !== 0) t.fatalf(`create: ${o.stderr.trim()}`);
    const pr = prName(repo, "simple-package", "workspace");
    // an edit task naming another package: porchctl's copy takes no package name, so only the API can
    // make that request
    const other = await p.editAs(pr, repo, "other-package", "workspace2");
    if (other)
      t.check(other.exitCode !== 0, "Expected error for source revision being from different package");
    const unpublished = await p.copy(pr, "workspace2");
    t.check(unpublished.exitCode !== 0, "Expected error for source revision not being published");
    await p.publish(pr);
    const e = await p.copy(pr, "workspace-to-avoid-creation-clash");
    if (e.exitCode !== 0) t.fatalf(`edit: ${e.stderr.trim()}`);
    const edited = await p.mustGet(prName(repo, "simple-package", "workspace-to-avoid-creation-clash"));
    const tasks = edited.spec.tasks ?? [];
    t.equal(1, tasks.length, "tasks");
    t.equal("edit", tasks[0]?.type, "task type");
    t.equal(pr, tasks[0]?.edit?.sourceRef?.name ?? tasks[0]?.edit?.source?.name, "edit source");
    const ph = await p.copy(prName(repo, "simple-package", "main"), "workspace2");
    t.check(
      ph.exitCode !== 0 && ph.stderr.includes("placeholder package revision"),
      `Expected error editing the placeholder package revision, got: ${ph.stderr.trim()}`,
    );
  },

  async TestUpdateResources(p, t) {
    const repo = "re-render-test";
    await p.register(p.porchTestUrl, repo);
    const name = await p.draft(repo, "simple-package", "workspace");
    const r = await p.resources(name);
    addMutator(r, t, {
      image: `${REGISTRY}/set-annotations:v0.1.4`,
      configMap: { color: "red", fruit: "apple" },
      name: "set-annotations",
    });
    r.files["config-map.yaml"] = CONFIGMAP;
    const u = await p.pushResources(r);
    if (u.exitCode !== 0) t.fatalf(`update: ${u.stderr.trim()}`);
    const after = await p.resources(name);
    const updated = after.files["config-map.yaml"];
    if (updated === undefined) t.fatalf("Updated config map config-map.yaml not found");
    const rs = await p.renderStatus(name);
    t.check(rs.err === "", `render error must be empty for successful render operation: ${rs.err}`);
    t.check(rs.exitCode === 0, "exit code must be zero for successful render operation.");
    t.equal(
      parse(`apiVersion: v1
data:
  value: Update Resources and Render
kind: ConfigMap
metadata:
  annotations:
    color: red
    fruit: apple
  name: update-resources-configmap
  namespace: example
`),
      parse(updated ?? ""),
      "Unexpected updated config map contents",
    );
  },

  async TestUpdateResourcesEmptyPatch(p, t) {
    const repo = "empty-patch-test";
    await p.register(p.porchTestUrl, repo);
    const name = await p.draft(repo, "simple-package", "workspace");
    const u = await p.pushResources(await p.resources(name));
    if (u.exitCode !== 0) t.fatalf(`update: ${u.stderr.trim()}`);
    const rs = await p.renderStatus(name);
    t.check(rs.err === "", `render error must be empty for empty patch operation: ${rs.err}`);
    t.check(rs.exitCode === 0, "exit code must be zero for empty patch operation.");
  },

  // ---- render_failure_test.go ----

  async TestRenderFailureNoPush(p, t) {
    const repo = "render-fail-no-push";
    await p.register(p.porchTestUrl, repo);
    const name = await p.draft(repo, "test-no-push", "workspace");
    const r = await p.resources(name);
    r.files["configmap.yaml"] =
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: test-cm\ndata:\n  key: before-render\n";
    addMutator(r, t, { image: "quay.io/invalid/nonexistent-fn:v0.0.1" });
    const u = await p.pushResources(r);
    if (!(u.exitCode !== 0 && u.stderr.includes("error rendering package in kpt function pipeline")))
      t.fatalf(
        `update: want "error rendering package in kpt function pipeline", got exit ${u.exitCode}: ${u.stderr.trim()}`,
      );
    t.check(
      !("configmap.yaml" in (await p.resources(name)).files),
      "configmap should not be persisted when push-on-render-failure is not set",
    );
  },

  async TestRenderFailureWithPushAnnotation(p, t) {
    const repo = "render-fail-push";
    await p.register(p.porchTestUrl, repo);
    const name = await p.draft(repo, "test-push-on-fail", "workspace");
    await p.addMeta("annotate", name, { "porch.kpt.dev/push-on-render-failure": "true" });
    const r = await p.resources(name);
    r.files["configmap.yaml"] =
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: test-cm\ndata:\n  key: before-render\n";
    addMutator(r, t, { image: "quay.io/invalid/nonexistent-fn:v0.0.1" });
    const u = await p.pushResources(r);
    if (u.exitCode === 0) t.fatalf("expected render failure error");
    const cm = (await p.resources(name)).files["configmap.yaml"];
    t.check(cm !== undefined, "configmap should be persisted when push-on-render-failure annotation is set");
    t.check(
      (cm ?? "").includes("key: before-render"),
      "configmap should contain original unrendered content",
    );
  },

  async TestRenderFailureWithSaveAndPushAnnotations(p, t) {
    const repo = "render-fail-save-push";
    await p.register(p.porchTestUrl, repo);
    const name = await p.draft(repo, "test-save-and-push", "workspace");
    await p.addMeta("annotate", name, { "porch.kpt.dev/push-on-render-failure": "true" });
    const r = await p.resources(name);
    setKptfileMeta(r, t, "annotations", { "kpt.dev/save-on-render-failure": "true" });
    addMutator(r, t, {
      image: `${REGISTRY}/set-annotations:v0.1.4`,
      configMap: { "render-test": "partial" },
    });
    addMutator(r, t, { image: "quay.io/invalid/nonexistent-fn:v0.0.1" });
    r.files["configmap.yaml"] =
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: test-cm\ndata:\n  key: before-render\n";
    const u = await p.pushResources(r);
    if (u.exitCode === 0) t.fatalf("expected render failure error");
    const after = await p.resources(name);
    const cm = after.files["configmap.yaml"];
    t.check(
      cm !== undefined,
      "configmap should be persisted with save-on-render-failure and push-on-render-failure",
    );
    t.check(
      (cm ?? "").includes("render-test: partial"),
      "configmap should have annotation from the working mutator (partial render)",
    );
    t.equal(
      "true",
      kptfileOf(after, t).metadata?.annotations?.["kpt.dev/save-on-render-failure"],
      "save-on-render-failure annotation should be preserved",
    );
  },

  // ---- repository_test.go ----

  async TestGitRepository(p, t) {
    await p.register(p.porchTestUrl, "test-git-repo");
    const name = await p.cloneBlueprint("test-git-repo", "test-bucket", "workspace", "bucket/v1", "bucket");
    const bucket = (await p.resources(name)).files["bucket.yaml"];
    if (bucket === undefined) return t.errorf("'bucket.yaml' not found among package resources");
    t.equal("blueprints-project-bucket2", parse(bucket)?.metadata?.name, "StorageBucket name");
  },

  async TestGitRepositoryWithReleaseTagsAndDirectory(p, t) {
    const repo = "test-release-tag-dir";
    await p.register(p.porchTestUrl, repo, { directory: "test-dir" });
    const o = await p.init(repo, "test-package", "v1", { description: "Test package inside /test-dir" });
    if (o.exitCode !== 0) t.fatalf(`create: ${o.stderr.trim()}`);
    await p.publish(prName(repo, "test-package", "v1"));
    const obj = await p.repoGet(repo);
    if (!obj) t.fatalf(`repository ${repo} not found`);
    const del = await p.repoDelete(repo);
    t.check(del.exitCode === 0, `delete repository: ${del.stderr.trim()}`);
    delete obj.status;
    const again = await p.repoApply(obj);
    t.check(again.exitCode === 0, `create repository: ${again.stderr.trim()}`);
    for (const pr of await p.list())
      t.check(
        !pr.spec.packageName.startsWith("test-dir"),
        `package name "${pr.spec.packageName}" should not include repo directory "test-dir" as prefix`,
      );
  },

  async TestRegisterRepository(p, t) {
    await p.register(p.porchTestUrl, "register", { deployment: true });
    const repo = await p.repoGet("register");
    t.equal("git", repo?.spec?.type, "Repo Type");
    t.equal(true, repo?.spec?.deployment, "Repo Deployment");
  },

  async TestRepositoryError(p, t) {
    await p.stage.ensureNamespace(p.ns);
    const created = await p.repoApply({
      apiVersion: "config.porch.kpt.dev/v1alpha1",
      kind: "Repository",
      metadata: { name: "repo-with-error", namespace: p.ns },
      spec: {
        description: "Repository With Error",
        type: "git",
        git: { repo: "https://repo.invalid/repository.git" },
      },
    });
    if (created.exitCode !== 0) t.fatalf(`create: ${created.stderr.trim()}`);
    const repo = await p.repoGet("repo-with-error");
    const ready = (repo?.status?.conditions ?? []).find((c: Obj) => c.type === "Ready");
    if (!ready) return t.errorf("Repository condition not available");
    t.equal("False", ready.status, "Repository Available Condition Status");
    t.equal("Error", ready.reason, "Repository Available Condition Reason");
  },

  async TestRepositoryModify(p, t) {
    await p.register(p.porchTestUrl, "repo-modify-test");
    const repo = await p.repoGet("repo-modify-test");
    repo.spec.description = "Updated Repository Description";
    delete repo.status;
    await p.must(["repo", "apply", "-f", "-"], stringify(repo));
    const updated = await p.repoGet("repo-modify-test");
    t.equal("Updated Repository Description", updated?.spec?.description, "Repository description");
  },

  async TestPackageRevisionListWithHangingRepository(p, t) {
    await p.register(p.porchTestUrl, "working-repo");
    await p.draft("working-repo", "test-package-hanging", "workspace");
    const created = await p.repoApply({
      apiVersion: "config.porch.kpt.dev/v1alpha1",
      kind: "Repository",
      metadata: { name: "hanging-repo-1", namespace: p.ns },
      spec: {
        description: "Hanging repo for blocking test",
        type: "git",
        git: { repo: "http://10.255.255.1/test.git" },
      },
    });
    if (created.exitCode !== 0) t.fatalf(`create: ${created.stderr.trim()}`);
    const list = await p.list("--field-selector", "spec.repository=working-repo");
    t.check(
      list.some((x) => x.spec.repository === "working-repo"),
      "Expected PackageRevisions from working repository, got none",
    );
  },

  async TestRepositoryImmutability(p, t) {
    const name = "immutable-test-repo";
    await p.register(p.porchTestUrl, name, { directory: "test-dir" });
    const original = await p.repoGet(name);
    const attempt = async (field: string, change: (o: Obj) => void, read: (o: Obj) => unknown) => {
      const obj = await p.repoGet(name);
      delete obj.status;
      change(obj);
      const o = await p.repoApply(obj);
      if (o.exitCode === 0)
        t.errorf(`Expected CEL validation error when modifying ${field}, but update succeeded`);
      else if (!o.stderr.includes("immutable"))
        t.errorf(`Expected CEL immutability error for ${field}, got: ${o.stderr.trim()}`);
      t.equal(read(original), read(await p.repoGet(name)), `${field} after the refused update`);
    };
    await attempt(
      "spec.git.repo",
      (o) => {
        o.spec.git.repo = "https://different-repo.git";
      },
      (o) => o.spec.git.repo,
    );
    await attempt(
      "spec.git.branch",
      (o) => {
        o.spec.git.branch = "different-branch";
      },
      (o) => o.spec.git.branch,
    );
    await attempt(
      "spec.git.directory",
      (o) => {
        o.spec.git.directory = "different-dir";
      },
      (o) => o.spec.git.directory,
    );
    await attempt(
      "spec.type",
      (o) => {
        o.spec.type = "oci";
      },
      (o) => o.spec.type,
    );
    const obj = await p.repoGet(name);
    delete obj.status;
    obj.spec.description = "Updated description for immutability test";
    const o = await p.repoApply(obj);
    t.check(o.exitCode === 0, `Failed to update mutable field (description): ${o.stderr.trim()}`);
    t.equal(
      "Updated description for immutability test",
      (await p.repoGet(name))?.spec?.description,
      "description",
    );
  },

  async TestRepositoryBranchDefault(p, t) {
    await p.stage.ensureNamespace(p.ns);
    const o = await p.repoApply({
      apiVersion: "config.porch.kpt.dev/v1alpha1",
      kind: "Repository",
      metadata: { name: "branch-default-test", namespace: p.ns },
      spec: { type: "git", git: { repo: p.porchTestUrl } },
    });
    if (o.exitCode !== 0) t.fatalf(`create: ${o.stderr.trim()}`);
    t.equal("main", (await p.repoGet("branch-default-test"))?.spec?.git?.branch, "Branch default");
  },

  // ---- rpkg_metadata_test.go ----

  async TestPackageRevisionMetadata(p, t) {
    // NewPackageRevisionLabels
    await p.register(p.porchTestUrl, "pkg-rev-labels");
    const o = await p.init("pkg-rev-labels", "new-package", "workspace", { description: "this is a test" });
    if (o.exitCode !== 0) t.fatalf(`create: ${o.stderr.trim()}`);
    const name = prName("pkg-rev-labels", "new-package", "workspace");
    await p.addMeta("label", name, { "kpt.dev/label": "foo" });
    await p.addMeta("annotate", name, { "kpt.dev/anno": "foo", "kpt.dev/other-anno": "bar" });
    const annos = { "kpt.dev/anno": "foo", "kpt.dev/other-anno": "bar" };
    await validateLabelsAndAnnos(p, name, { "kpt.dev/label": "foo" }, annos);
    await p.mustLifecycle("propose", name);
    await validateLabelsAndAnnos(p, name, { "kpt.dev/label": "foo" }, annos);
    await p.mustLifecycle("approve", name);
    await validateLabelsAndAnnos(p, name, { "kpt.dev/label": "foo", [LATEST]: "true" }, annos);
    const pr = await p.mustGet(name);
    await p.setMeta("label", name, { "kpt.dev/other-label": "bar" }, labelsOf(pr));
    await p.setMeta("annotate", name, { "kpt.dev/anno": "foo" }, ownAnnotations(pr));
    await validateLabelsAndAnnos(
      p,
      name,
      { "kpt.dev/other-label": "bar", [LATEST]: "true" },
      { "kpt.dev/anno": "foo" },
    );
    const c = await p.clone("pkg-rev-labels", "cloned-package", "workspace", name);
    if (c.exitCode !== 0) t.fatalf(`clone: ${c.stderr.trim()}`);
    await validateLabelsAndAnnos(p, prName("pkg-rev-labels", "cloned-package", "workspace"), {}, {});
    // RegisteredPackageRevisionLabels
    await p.register(p.blueprintsUrl, "test-blueprints");
    const basens = p.find(await p.list(), "test-blueprints", "basens", 1);
    await validateLabelsAndAnnos(p, basens.metadata.name, {}, {});
    await p.addMeta("label", basens.metadata.name, { "kpt.dev/label": "foo" });
    await p.addMeta("annotate", basens.metadata.name, { "kpt.dev/anno": "foo" });
    await validateLabelsAndAnnos(
      p,
      basens.metadata.name,
      { "kpt.dev/label": "foo" },
      { "kpt.dev/anno": "foo" },
    );
  },

  async TestPackageRevisionFieldSelectors(p, t) {
    await p.register(p.blueprintsUrl, "test-blueprints");
    const cases: [string, string, boolean, (pr: Obj) => boolean][] = [
      ["PackageName", "spec.packageName=basens", true, (pr) => pr.spec.packageName === "basens"],
      ["Revision", "spec.revision=1", true, (pr) => pr.spec.revision === 1],
      ["WorkspaceName", "spec.workspaceName=v1", true, (pr) => pr.spec.workspaceName === "v1"],
      ["LifecyclePublished", "spec.lifecycle=Published", true, (pr) => pr.spec.lifecycle === "Published"],
      ["LifecycleDraft", "spec.lifecycle=Draft", false, (pr) => pr.spec.lifecycle === "Draft"],
      [
        "CombinedSelectors",
        "spec.revision=1,spec.packageName=basens",
        true,
        (pr) => pr.spec.packageName === "basens" && pr.spec.revision === 1,
      ],
    ];
    for (const [label, sel, expect, ok] of cases) {
      const list = await p.list("--field-selector", sel);
      if (expect && list.length === 0)
        t.errorf(`${label}: Expected at least one PackageRevision with selector ${sel}, but got none`);
      for (const pr of list)
        t.check(ok(pr), `${label}: PackageRevision ${pr.metadata.name} does not match ${sel}`);
    }
  },

  async TestPackageRevisionLabelSelectors(p, t) {
    const repo = "pkg-rev-label-selectors";
    await p.register(p.porchTestUrl, repo);
    const o = await p.init(repo, "new-package", "workspace", { description: "this is a test" });
    if (o.exitCode !== 0) t.fatalf(`create: ${o.stderr.trim()}`);
    const name = prName(repo, "new-package", "workspace");
    await p.addMeta("label", name, { "kpt.dev/label": "foo" });
    await p.publish(name);
    for (const [label, sel, want] of [
      ["ExistingLabel", "kpt.dev/label=foo", 1],
      ["NonExistentLabel", "kpt.dev/label=bar", 0],
      ["LatestPackageRevisionLabel", `${LATEST}=true`, 1],
    ] as const)
      t.equal(want, (await p.list("-l", sel)).length, `${label}: count`);
  },

  // ---- advanced_test.go ----

  async TestLargePackageRevision(p, t) {
    const size = 5 * 1024 * 1024;
    await p.register(p.porchTestUrl, "git-fn-pod-large");
    const name = await p.draft("git-fn-pod-large", "new-package", "workspace");
    const r = await p.resources(name);
    r.files.Kptfile += `
pipeline:
  mutators:
  - image: ${REGISTRY}/set-annotations:v0.1.5
    configMap:
      test-key: test-val
    selectors:
       - name: test-data
`;
    r.files["largefile.yaml"] = `
apiVersion: v1
kind: ConfigMap
metadata:
  name: test-data
  labels:
    something: somewhere
data:
  value: "${"a".repeat(size)}"
`;
    const u = await p.pushResources(r);
    const rs = await p.renderStatus(name);
    if (u.exitCode !== 0 || rs.err !== "" || rs.exitCode !== 0)
      t.fatalf(`Couldn't render large package! exit code: ${rs.exitCode},\n${rs.err || u.stderr.trim()}`);
    for (const [file, text] of Object.entries((await p.resources(name)).files)) {
      if (!file.endsWith(".yaml")) continue;
      const node = parse(text);
      if (node?.metadata?.name !== "test-data") continue;
      const value = node.data?.value;
      if (typeof value !== "string") t.fatalf("couldn't find large string in test-data");
      if (value.length !== size) t.fatalf(`large string size mismatch. want: ${size}, got: ${value.length}`);
      t.check(
        node.metadata.annotations?.["test-key"] === "test-val",
        `Object (${node.kind} "test-data") should contain annotation \`test-key:test-val\`, but we got: ${JSON.stringify(node.metadata.annotations)}`,
      );
    }
  },

  async TestPackageRevisionInMultipleNamespaces(p, t) {
    const registerAndTest = async (repo: string, ns: string, old: Obj[]) => {
      await p.register(p.blueprintsUrl, repo, { namespace: ns });
      let prs: Obj[] = await p.listIn(ns);
      if (prs.length === 0) t.errorf(`no PackageRevisions found in repo: ${repo}`);
      prs = prs.filter(
        (pr) =>
          !old.some(
            (x) =>
              x.metadata.name === pr.metadata.name &&
              x.metadata.namespace === pr.metadata.namespace &&
              x.spec.repository === pr.spec.repository &&
              x.spec.packageName === pr.spec.packageName &&
              x.spec.workspaceName === pr.spec.workspaceName,
          ),
      );
      for (const pr of prs) {
        t.check(pr.metadata.name.startsWith(repo), `PR name: want prefix: ${repo}, got ${pr.metadata.name}`);
        t.check(pr.spec.repository === repo, `PR repository: want: ${repo}, got ${pr.spec.repository}`);
        t.check(
          pr.metadata.namespace === ns,
          `PR ${pr.metadata.name} namespace: want ${ns}, got ${pr.metadata.namespace}`,
        );
      }
      return prs;
    };
    const prs1 = await registerAndTest("test-blueprints", p.ns, []);
    const prs2 = await registerAndTest("test-2-blueprints", `${p.ns}-2`, []);
    t.check(
      prs2.length === prs1.length,
      `number of PackageRevisions in namespace ${p.ns}-2: want ${prs1.length}, got ${prs2.length}`,
    );
    const prs3 = await registerAndTest("test-3-blueprints", `${p.ns}-3`, prs1);
    t.check(
      prs3.length === prs1.length,
      `number of PackageRevisions in repo-3: want ${prs1.length}, got ${prs3.length}`,
    );
  },

  async TestUniquenessOfUIDs(p, t) {
    await p.register(p.blueprintsUrl, "test-blueprints");
    await p.register(p.blueprintsUrl, "test-4-blueprints", { namespace: `${p.ns}-4` });
    const uids = new Map<string, string>();
    for (const pr of await p.list()) {
      const other = uids.get(pr.metadata.uid);
      if (other)
        t.errorf(`PackageRevision ${pr.metadata.name} has the same UID as ${other}: ${pr.metadata.uid}`);
      uids.set(pr.metadata.uid, pr.metadata.name);
    }
    t.check(uids.size > 0 && !uids.has(undefined as unknown as string), "every PackageRevision has a uid");
  },

  async TestCreatePackageRevisionRollback(p, t) {
    await p.register(p.porchTestUrl, "test-repo");
    const o = await p.clone(
      "test-repo",
      "test-package-rollback",
      "test-workspace-rollback",
      "https://github.com/nephio-project/porch.git",
      { ref: "main", directory: "testdata/test-repo" },
    );
    t.check(
      o.exitCode !== 0,
      "Expected error when creating package revision with invalid task configuration",
    );
    t.check(
      (await p.get(prName("test-repo", "test-package-rollback", "test-workspace-rollback"))) === undefined,
      "Expected package revision to be deleted after rollback",
    );
  },

  async TestMetadataAfterApproveAndBackgroundJob(p) {
    const repo = "repo-background-job";
    const pkg = "test-package-approve-and-background-job";
    await p.register(p.porchTestUrl, repo);
    const o = await p.init(repo, pkg, "v1");
    if (o.exitCode !== 0) p.t.fatalf(`create: ${o.stderr.trim()}`);
    await p.publish(prName(repo, pkg, "v1"));
    const check = async () => {
      const list = await p.list();
      const v1 = p.find(list, repo, pkg, 1);
      p.t.equal("v1", v1.spec.workspaceName, "v1's workspace");
      const main = p.find(list, repo, pkg, -1);
      p.t.equal("main", main.spec.workspaceName, "main's workspace");
    };
    await check();
    await retrigger(p, repo);
    await check();
  },

  async TestMetadataAfterDeleteAndBackgroundJob(p, t) {
    const repo = "repo-background-job";
    const pkg = "test-package-delete-and-background-job";
    await p.register(p.porchTestUrl, repo);
    const o = await p.init(repo, pkg, "v1");
    if (o.exitCode !== 0) t.fatalf(`create: ${o.stderr.trim()}`);
    const name = prName(repo, pkg, "v1");
    await p.publish(name);
    const list = await p.list();
    p.find(list, repo, pkg, 1);
    p.find(list, repo, pkg, -1);
    await p.mustLifecycle("propose-delete", name);
    const d = await p.lifecycle("del", name);
    t.check(d.exitCode === 0, `delete ${name}: ${d.stderr.trim()}`);
    const main = name.replace("v1", "main");
    const check = async () => {
      t.check((await p.get(main)) !== undefined, `${main} should exist`);
      t.check((await p.get(name)) === undefined, `${name} should not exist`);
    };
    await check();
    await retrigger(p, repo);
    await check();
  },

  async TestPackageMetadataFromKptfile(p, t) {
    const repo = "test-package-metadata-repo";
    const pkg = "test-package-metadata";
    await p.register(p.porchTestUrl, repo);
    await p.register(p.blueprintsUrl, "test-blueprints");
    const simple = p.find(await p.list(), "test-blueprints", "basens", 4);
    const name = prName(repo, pkg, "test-workspace");
    const checkBoth = async (labels: Record<string, string>, annos: Record<string, string>) => {
      const pr = await p.mustGet(name);
      if (!pr.spec.packageMetadata) t.fatalf("spec.packageMetadata is missing");
      t.equal(labels, pr.spec.packageMetadata.labels, "spec.packageMetadata.labels");
      for (const [k, v] of Object.entries(annos))
        t.equal(v, pr.spec.packageMetadata.annotations?.[k], `spec.packageMetadata.annotations[${k}]`);
      const kf = kptfileOf(await p.resources(name), t);
      t.equal(labels, kf.metadata?.labels, "Kptfile labels");
      for (const [k, v] of Object.entries(annos))
        t.equal(v, kf.metadata?.annotations?.[k], `Kptfile annotations[${k}]`);
    };
    // Initial creation: a clone task with spec.packageMetadata
    const c = await p.clone(repo, pkg, "test-workspace", simple.metadata.name);
    if (c.exitCode !== 0) t.fatalf(`clone: ${c.stderr.trim()}`);
    let r = await p.resources(name);
    setKptfileMeta(r, t, "labels", { "porch.dev/new-label": "new-label-value" });
    setKptfileMeta(r, t, "annotations", { "porch.dev/new-annotation": "new-annotation-value" });
    await p.pushResources(r);
    await checkBoth(
      { "test-label": "test-value", "porch.dev/new-label": "new-label-value" },
      { "test-annotation": "true", "porch.dev/new-annotation": "new-annotation-value" },
    );
    // Manual Kptfile metadata update
    r = await p.resources(name);
    setKptfileMeta(r, t, "labels", { "porch.dev/test-label": "added-by-e2e-test" });
    setKptfileMeta(r, t, "annotations", { "porch.dev/test-annotation": "e2e-test-annotation-value" });
    const u = await p.pushResources(r);
    if (u.exitCode !== 0) t.fatalf(`update: ${u.stderr.trim()}`);
    await checkBoth(
      {
        "test-label": "test-value",
        "porch.dev/new-label": "new-label-value",
        "porch.dev/test-label": "added-by-e2e-test",
      },
      {
        "test-annotation": "true",
        "porch.dev/new-annotation": "new-annotation-value",
        "porch.dev/test-annotation": "e2e-test-annotation-value",
      },
    );
    // Update PackageMetadata: replaces the Kptfile's labels and annotations
    r = await p.resources(name);
    const labels = {
      "porch.dev/new-label": "changed-label-value",
      "porch.dev/added-label": "added-label-value",
    };
    const annos = {
      "porch.dev/new-annotation": "changed-annotation-value",
      "porch.dev/added-annotation": "added-annotation-value",
    };
    setKptfileMeta(r, t, "labels", labels, true);
    setKptfileMeta(r, t, "annotations", annos, true);
    const u2 = await p.pushResources(r);
    if (u2.exitCode !== 0) t.fatalf(`update: ${u2.stderr.trim()}`);
    await checkBoth(labels, annos);
  },

  async TestPackageMetadataFieldSelectors(p, t) {
    await p.register(p.porchTestUrl, "test-package-field-selector-repo");
    await p.register(p.blueprintsUrl, "test-blueprints");
    const simple = p.find(await p.list(), "test-blueprints", "basens", 4);
    const labels = simple.spec.packageMetadata?.labels ?? {};
    const [key, value] = Object.entries(labels)[0] ?? [];
    if (key === undefined) t.fatalf("basens v4 has no spec.packageMetadata.labels");
    const filtered = await p.list("--field-selector", `spec.packageMetadata.labels[${key}]=${value}`);
    let found = false;
    for (const item of filtered) {
      if (item.spec.packageMetadata?.labels?.[key as string] !== value)
        t.fatalf(`${item.metadata.name} lacks ${key}=${value}`);
      if (item.spec.packageName === "basens" && item.spec.repository === "test-blueprints") found = true;
    }
    t.check(found, "basens not found by its label");
    const none = await p.list(
      "--field-selector",
      "spec.packageMetadata.labels[non-existing-label-key]=non-existing-value",
    );
    t.equal(0, none.length, "filter by non-existing label");
  },

  // ---- concurrent_test.go ----

  async TestConcurrentClones(p, t) {
    await p.register(p.blueprintsUrl, "upstream");
    await p.register(p.porchTestUrl, "downstream");
    const up = p.find(await p.list(), "upstream", "basens", 1);
    const clone = () => p.clone("downstream", "istions-concurrent", "test-workspace", up.metadata.name);
    assertConcurrent(t, await Promise.all([clone(), clone()]), "clone");
  },

  async TestConcurrentInits(p, t) {
    await p.register(p.porchTestUrl, "git-concurrent");
    const init = () => p.init("git-concurrent", "empty-package-concurrent", "test-workspace");
    const results = await Promise.all([init(), init()]);
    t.equal(2, results.length, "result count");
    assertConcurrent(t, results, "init");
  },

  async TestConcurrentEdits(p, t) {
    const repo = "concurrent-edit-test";
    await p.register(p.porchTestUrl, repo);
    const name = await p.draft(repo, "simple-package-concurrent", "workspace");
    await p.publish(name);
    const edit = () => p.copy(name, "workspace2");
    assertConcurrent(t, await Promise.all([edit(), edit()]), "edit");
    const pr = await p.mustGet(prName(repo, "simple-package-concurrent", "workspace2"));
    t.equal(1, (pr.spec.tasks ?? []).length, "tasks");
  },

  async TestConcurrentResourceUpdates(p, t) {
    await p.register(p.porchTestUrl, "concurrent-update-test");
    const name = await p.draft("concurrent-update-test", "simple-package", "workspace");
    const r = await p.resources(name);
    const update = () => p.pushResources({ ...r, files: { ...r.files } });
    assertConcurrent(t, await Promise.all([update(), update()]), "resource update");
  },

  async TestConcurrentProposeApprove(p, t) {
    await p.register(p.porchTestUrl, "lifecycle");
    const name = await p.draft("lifecycle", "test-package-concurrent", "workspace");
    await p.mustGet(name);
    assertConcurrent(
      t,
      await Promise.all([p.lifecycle("propose", name), p.lifecycle("propose", name)]),
      "propose",
    );
    await p.mustGet(name);
    assertConcurrent(
      t,
      await Promise.all([p.lifecycle("approve", name), p.lifecycle("approve", name)]),
      "approve",
    );
  },

  async TestConcurrentDeletes(p, t) {
    await p.register(p.porchTestUrl, "delete-draft");
    const name = await p.draft("delete-draft", "test-delete-draft-concurrent", "test-workspace");
    await p.mustGet(name);
    const results = await Promise.all(Array.from({ length: 8 }, () => p.lifecycle("del", name)));
    t.check(results.length >= 7, `expected at least 7 results but was ${results.length}`);
    assertConcurrent(t, results, "delete");
    t.check((await p.get(name)) === undefined, `${name} still exists`);
  },

  async TestConcurrentProposeDeletes(p, t) {
    await p.register(p.porchTestUrl, "delete-final");
    const name = await p.draft("delete-final", "test-delete-final-concurrent", "workspace");
    await p.mustGet(name);
    await p.publish(name);
    await p.mustGet(name);
    assertConcurrent(
      t,
      await Promise.all([p.lifecycle("propose-delete", name), p.lifecycle("propose-delete", name)]),
      "propose-delete",
    );
  },

  async TestConcurrentPackageUpdates(p, t) {
    await p.register(p.blueprintsUrl, "test-blueprints");
    const list = await p.list();
    const v1 = p.find(list, "test-blueprints", "basens", 1);
    const v2 = p.find(list, "test-blueprints", "basens", 2);
    await p.register(p.porchTestUrl, "concurrent-package-update");
    const c = await p.clone(
      "concurrent-package-update",
      "testns-concurrent",
      "test-workspace",
      v1.metadata.name,
    );
    if (c.exitCode !== 0) t.fatalf(`clone: ${c.stderr.trim()}`);
    const name = prName("concurrent-package-update", "testns-concurrent", "test-workspace");
    // an update of the draft's clone task to basens v2: the draft upgraded in place, as Porch's update
    const update = () => p.upgrade(name, "test-workspace-v2", v2);
    assertConcurrent(t, await Promise.all([update(), update()]), "package update");
  },

  // ---- fn_runner_test.go ----

  async TestBuiltinFunctionEvaluator(p, t) {
    const r = await setupFunctionTestPackage(
      p,
      "git-builtin-fn-eval",
      "test-builtin-fn-bucket",
      "test-workspace",
    );
    addMutator(r, t, {
      image: `${REGISTRY}/starlark:v0.4.3`,
      configMap: {
        source:
          'for resource in ctx.resource_list["items"]:\n\t\t  resource["metadata"]["annotations"]["foo"] = "bar"',
      },
    });
    addMutator(r, t, {
      image: `${REGISTRY}/set-namespace:v0.4.1`,
      configMap: { namespace: "bucket-namespace" },
    });
    const u = await p.pushResources(r);
    if (u.exitCode !== 0) t.fatalf(`update: ${u.stderr.trim()}`);
    await validateBucket(p, t, r.name, "bucket-namespace", { foo: "bar" });
  },

  async TestExecFunctionEvaluator(p, t) {
    const r = await setupFunctionTestPackage(p, "git-exec-fn-eval", "test-fn-bucket", "test-workspace");
    addMutator(r, t, {
      image: `${REGISTRY}/starlark:v0.3.0`,
      configMap: {
        source:
          '# set the namespace on all resources\n\nfor resource in ctx.resource_list["items"]:\n\n\t  # mutate the resource\n\t  resource["metadata"]["namespace"] = "bucket-namespace"',
      },
    });
    addMutator(r, t, { image: `${REGISTRY}/set-annotations:v0.1.4`, configMap: { foo: "bar" } });
    const u = await p.pushResources(r);
    if (u.exitCode !== 0) t.fatalf(`update: ${u.stderr.trim()}`);
    await validateBucket(p, t, r.name, "bucket-namespace", { foo: "bar" });
  },

  async TestPodFunctionEvaluatorWithDistrolessImage(p, t) {
    const r = await setupFunctionTestPackage(
      p,
      "git-fn-distroless",
      "test-fn-distroless-bucket",
      "workspace-distroless",
      { ref: "redis-bucket/v1", dir: "redis-bucket" },
    );
    r.files["configmap.yaml"] =
      "\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kptfile.kpt.dev\ndata:\n  name: bucket-namespace\n";
    addMutator(r, t, { image: `${REGISTRY}/set-namespace:v0.4.1`, configPath: "configmap.yaml" });
    const u = await p.pushResources(r);
    if (u.exitCode !== 0) t.fatalf(`update: ${u.stderr.trim()}`);
    await validateBucket(p, t, r.name, "bucket-namespace", undefined);
  },

  async TestPodEvaluatorWithFailure(p, t) {
    const r = await setupFunctionTestPackage(p, "git-pod-eval-fn-failure", "test-fn-pod-bucket", "workspace");
    r.files["invalid.yaml"] =
      'apiVersion: v1\nkind: Pod\nmetadata:\n  name: invalid-resource\nspec:\n  replicas: "invalid"';
    addMutator(r, t, { image: `${REGISTRY}/kubeconform:v0.1.1` });
    const u = await p.pushResources(r);
    if (u.exitCode === 0) t.fatalf("expected error but got none");
  },

  async TestFailedPodEvictionAndRecovery(p, t) {
    const r = await setupFunctionTestPackage(
      p,
      "git-fn-failed-recovery",
      "test-fn-pod-eviction",
      "workspace",
    );
    addMutator(r, t, { image: "quay.io/invalid/kpt-fn-broken:v0.0.1" });
    const u = await p.pushResources(r);
    t.require(
      u.exitCode !== 0 && u.stderr.includes("error rendering package in kpt function pipeline"),
      `want "error rendering package in kpt function pipeline", got: ${u.stderr.trim()}`,
    );
  },
};

async function retrigger(p: Porch, repo: string) {
  const obj = await p.repoGet(repo);
  if (!obj) p.t.fatalf(`repository ${repo} not found`);
  delete obj.status;
  await p.must(["repo", "unregister", repo]);
  await p.must(["repo", "apply", "-f", "-"], stringify(obj));
}

function validateClonedKptfile(t: T, kf: Obj, name: string, blueprints: string) {
  t.equal(name, kf.metadata?.name, `${name} package Kptfile.metadata.name`);
  if (!kf.upstreamLock) t.fatalf(`${name} package upstreamLock is missing`);
  t.check(!!kf.upstreamLock.git, `${name} package upstreamLock.git is missing`);
  t.check(!!kf.upstreamLock.git?.commit, `${name} package upstreamLock.git.commit is missing`);
  const lock = { ...kf.upstreamLock, git: { ...kf.upstreamLock.git } };
  delete lock.git.commit;
  t.equal(
    { type: "git", git: { repo: blueprints, directory: "basens", ref: "basens/v1" } },
    lock,
    "upstreamLock",
  );
  t.equal(
    { type: "git", git: { repo: blueprints, directory: "basens", ref: "basens/v1" } },
    kf.upstream,
    "upstream",
  );
}

async function setupFunctionTestPackage(
  p: Porch,
  repo: string,
  pkg: string,
  ws: string,
  opts: { ref?: string; dir?: string } = {},
): Promise<Resources> {
  await p.register(p.porchTestUrl, repo);
  const name = await p.cloneBlueprint(repo, pkg, ws, opts.ref ?? "bucket/v1", opts.dir ?? "bucket");
  return p.resources(name);
}

async function validateBucket(
  p: Porch,
  t: T,
  name: string,
  ns: string,
  annos: Record<string, string> | undefined,
) {
  const bucket = (await p.resources(name)).files["bucket.yaml"];
  if (bucket === undefined) return t.errorf("'bucket.yaml' not found among package resources");
  const node = parse(bucket);
  t.equal(ns, node?.metadata?.namespace, "StorageBucket namespace");
  for (const [k, v] of Object.entries(annos ?? {}))
    t.check(
      node?.metadata?.annotations?.[k] === v,
      `StorageBucket annotations should contain ${k}=${v}, but got ${JSON.stringify(node?.metadata?.annotations)}`,
    );
}

async function main(argv: string[]): Promise<number> {
  const porch = argv.find((a, i) => !a.startsWith("--") && argv[i - 1] !== "--test");
  if (!porch || !existsSync(join(porch, "test/e2e/api"))) {
    process.stderr.write(
      "usage: npm run porch-api-e2e -- PORCH_CHECKOUT [--through=rpkg|api] [--test NAME]...\n(PORCH_CHECKOUT: a copy of nephio-project/porch, holding test/e2e/api)\n",
    );
    return 2;
  }
  // every Test method of the Go suite is here, translated or listed as untranslated
  const goTests = readdirSync(join(porch, "test/e2e/api"))
    .filter((f) => f.endsWith("_test.go"))
    .flatMap((f) =>
      [
        ...readFileSync(join(porch, "test/e2e/api", f), "utf8").matchAll(
          /^func \(t \*PorchSuite\) (Test\w+)\(\)/gm,
        ),
      ].map((m) => m[1] as string),
    );
  const unknown = goTests.filter((n) => !(n in TESTS) && !(n in UNTRANSLATED));
  if (unknown.length > 0) {
    process.stderr.write(`porch-api-e2e: tests of this Porch not translated yet: ${unknown.join(", ")}\n`);
    return 2;
  }
  const only = argv.flatMap((a, i) => (a === "--test" ? [argv[i + 1] as string] : []));
  const through = argv.find((a) => a.startsWith("--through="))?.slice("--through=".length) ?? "rpkg";
  if (through !== "rpkg" && through !== "api") {
    process.stderr.write(
      `porch-api-e2e: --through=${through}: use --through=rpkg (the default) or --through=api\n`,
    );
    return 2;
  }
  const stage = await startPorchStage(porch, process.cwd());
  const api = through === "api" ? await startPorchApiClient(stage.forge.apiUrl, stage.token) : undefined;
  let passed = 0;
  let total = 0;
  // each test starts with a fresh hour of GitHub's budget (Porch's suite has no such limit); what it
  // spent is counted, for the cost of one client against the other
  const spent: number[] = [];
  let notModified = 0;
  const failures: string[] = [];
  for (const [i, name] of goTests.entries()) {
    const test = TESTS[name];
    if (!test || (only.length > 0 && !only.includes(name))) continue;
    total++;
    stage.restRequests({ fresh: true });
    const t = new T();
    const ns = `porch-test-${i}`;
    const p = api ? new ApiPorch(stage, ns, t, api) : new Porch(stage, ns, t);
    try {
      await test(p, t);
    } catch (e) {
      if (!(e instanceof Fatal)) t.errors.push(`threw: ${(e as Error).stack ?? e}`);
    }
    const used = stage.restRequests();
    spent.push(used.counted);
    notModified += used.notModified;
    if (p.usedPorchTest) await stage.recreatePorchTest();
    if (t.errors.length === 0) passed++;
    else failures.push(`${name}:\n    ${t.errors.join("\n    ")}`);
    process.stdout.write(
      `${t.errors.length === 0 ? "PASS" : "FAIL"} ${name} (${used.counted} GitHub requests counted, ${used.notModified} answered 304)\n`,
    );
  }
  process.stdout.write(
    `\n${passed}/${total} translated tests pass through ${through}; not translated (${Object.keys(UNTRANSLATED).length}, Kubernetes' own machinery):\n`,
  );
  process.stdout.write(
    `GitHub REST requests of nephio's token counted against its budget: ${spent.reduce((a, b) => a + b, 0)} in all, at most ${Math.max(0, ...spent)} in one test; besides, ${notModified} conditional requests answered 304 Not Modified (not counted)\n`,
  );
  for (const [n, why] of Object.entries(UNTRANSLATED)) process.stdout.write(`  ${n}: ${why}\n`);
  for (const f of failures) process.stdout.write(`FAIL ${f}\n`);
  await api?.close();
  await stage.close();
  return passed === total ? 0 : 1;
}

main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
