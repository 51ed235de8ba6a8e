import { defaultPackageName } from "../kpt/source-ref.js";
import { formatQuotedFieldPath, type PathSegment } from "../kpt/yaml/yaml-locate.js";
import { type ExprEnv, ExpressionError, type ExprValue, evaluateExpression } from "./expressions.js";
import { packageVariantName } from "./naming.js";
import { type SelectableObject, selectObjects } from "./objects.js";
import { issueMessage, type LoadedSet, type LoadedVariant } from "./parse.js";
import { resolveUpstream } from "./plan.js";
import type { UpstreamIndex } from "./plan-types.js";
import type { VariantProblem } from "./problem.js";
import type { ObjectMetadata } from "./registrations.js";
import { findRepository, type RepositoryInfo, selectRepositories } from "./repositories.js";
import {
  isSourceUpstream,
  PACKAGE_VARIANT_API_VERSION,
  PACKAGE_VARIANT_KIND,
  type PackageVariantInput,
  packageVariantSchema,
  type Upstream,
} from "./schema.js";
import type { MapExpr, PackageVariantTemplate } from "./set-schema.js";
import { sourceOf, sourcePackageRef } from "./source-upstream.js";

/** Annotation on a generated PackageVariant naming the set it came from. */
const VARIANT_SET_ANNOTATION = "porchlight.dev/package-variant-set";

export interface ExpandedSet {
  variants: LoadedVariant[];
  problems: VariantProblem[];
}

interface TargetEntry {
  targetIndex: number;
  template: PackageVariantTemplate | undefined;
  repoDefault: string;
  /** Picked by a `repositorySelector` in another installation of the app (`owner/name`). */
  elsewhere?: boolean;
  packageDefault: string;
  target: ExprEnv[string];
}

/**
 * Unrolls a PackageVariantSet into one PackageVariant per target, as Porch's set controller does: each
 * explicit repository (once per listed package name, else once with the upstream package's name), or each
 * selected repository, then the template applied. A target whose expressions cannot be evaluated is
 * reported and left out; the others are still generated.
 */
export function expandPackageVariantSet(
  loaded: LoadedSet,
  repositories: readonly RepositoryInfo[],
  options: ExpandOptions = {},
): ExpandedSet {
  const { set, source } = loaded;
  const out: ExpandedSet = { variants: [], problems: [] };
  const upstream = set.spec.upstream;
  const up = upstreamNames(upstream);
  const upstreamValue = upstreamVariable(upstream, options);
  const entries: TargetEntry[] = [];
  set.spec.targets.forEach((target, targetIndex) => {
    if (target.repositories) {
      for (const rt of target.repositories) {
        for (const pn of rt.packageNames?.length ? rt.packageNames : [up.name]) {
          entries.push({
            targetIndex,
            template: target.template,
            repoDefault: rt.name,
            packageDefault: pn,
            target: { repo: rt.name, package: pn },
          });
        }
      }
    } else if (target.repositorySelector) {
      for (const repo of selectRepositories(target.repositorySelector, repositories)) {
        entries.push({
          targetIndex,
          template: target.template,
          repoDefault: repo.name,
          ...(repo.name.includes("/") ? { elsewhere: true } : {}),
          packageDefault: up.name,
          target: repositoryValue(repo),
        });
      }
    } else if (target.objectSelector) {
      for (const o of selectObjects(target.objectSelector, options.objects ?? [])) {
        entries.push({
          targetIndex,
          template: target.template,
          repoDefault: o.name,
          packageDefault: up.name,
          target: {
            name: o.name,
            ...(o.namespace ? { namespace: o.namespace } : {}),
            labels: { ...o.labels },
            annotations: { ...o.annotations },
          },
        });
      }
    }
  });

  // One warning per field, not one per repository the field is evaluated for.
  const warned = new Set<string>();
  for (const entry of entries) {
    const base: PathSegment[] = ["spec", "targets", entry.targetIndex, "template"];
    const report = (path: PathSegment[], message: string, hint?: string) => {
      const pos = loaded.locate?.([...base, ...path]) ?? { line: source.line, column: source.column };
      out.problems.push({
        file: source.file,
        ...pos,
        field: formatQuotedFieldPath([...base, ...path]),
        variant: set.metadata.name,
        message,
        ...(hint ? { hint } : {}),
      });
    };
    try {
      const variant = renderVariant(set.metadata.name, upstream, upstreamValue, entry, repositories, (w) => {
        const field = formatQuotedFieldPath([...base, ...w.path]);
        if (warned.has(field)) return;
        warned.add(field);
        const pos = loaded.locate?.([...base, ...w.path]) ?? { line: source.line, column: source.column };
        out.problems.push({
          file: source.file,
          ...pos,
          field,
          variant: set.metadata.name,
          severity: "warning",
          message: `${w.variable}.name is ${JSON.stringify(w.name)} here, owner and name, as a repository of another account is named; Porch's ${w.variable}.name is only ever a name, and this expression gives ${JSON.stringify(w.value)}${w.meaning}`,
          hint: `${w.variable}.name is meant as owner/name only in downstream.repoExpr; elsewhere use a plain value, packageDefault or an expression without it for the targets of other accounts`,
        });
      });
      const parsed = packageVariantSchema.safeParse(variant);
      if (!parsed.success) {
        for (const issue of parsed.error.issues) {
          const path = issue.path.filter((s): s is PathSegment => typeof s !== "symbol");
          report(
            path.slice(1),
            `${issueMessage(issue.message, path)} (in the PackageVariant generated for ${entry.repoDefault}/${entry.packageDefault})`,
          );
        }
        continue;
      }
      out.variants.push({
        variant: parsed.data,
        source: { ...source, set: set.metadata.name },
        locate: (path) =>
          loaded.locate?.([...base, ...path.slice(1)]) ?? { line: source.line, column: source.column },
      });
    } catch (err) {
      if (!(err instanceof TemplateError)) throw err;
      report(err.path, err.message, "use a plain value, or an expression porchlight can evaluate");
    }
  }
  if (set.spec.paused) for (const v of out.variants) v.variant.spec.paused = true;
  return out;
}

/** An expression that read the `owner/name` of a repository of another account where a name is meant. */
interface OwnerInName {
  path: PathSegment[];
  variable: "repository" | "target";
  name: string;
  value: string;
  /** What the `/` does there, e.g. ` (a nested package path)`. */
  meaning: string;
}

/** Whether a template expression reads `<variable>.name` (or `<variable>['name']`). */
function readsName(expr: string, variable: string): boolean {
  return new RegExp(`\\b${variable}\\s*(?:\\.\\s*name\\b|\\[\\s*(['"])name\\1\\s*\\])`).test(expr);
}

function meaningOf(path: PathSegment[]): string {
  if (path[0] === "downstream")
    return " for downstream.package: a package nested in a directory named after the owner";
  if (path[0] === "labelExprs") return ": a label value cannot hold a '/' in Kubernetes";
  if (path[0] === "injectors") return ": a resource name cannot hold a '/' in Kubernetes";
  return "";
}

class TemplateError extends Error {
  constructor(
    readonly path: PathSegment[],
    message: string,
  ) {
    super(message);
  }
}

/**
 * The upstream as expressions see it (`upstream.name`, `.repo`, `.package`): Porch's package, or for an
 * image or tarball its last directory or repository (file) name (as `pkg get` names the local copy), its
 * oci:// repository or archive URL, and its directory.
 */
function upstreamNames(upstream: Upstream): { name: string; repo: string; package: string } {
  if (!isSourceUpstream(upstream))
    return { name: upstream.package, repo: upstream.repo, package: upstream.package };
  const src = sourceOf(upstream);
  const ref = sourcePackageRef(src);
  return { name: defaultPackageName(src), repo: ref.repo, package: ref.package };
}

export interface ExpandOptions {
  /** The objects `objectSelector` selects from: those of the management repository (objects.ts). */
  objects?: readonly SelectableObject[];
  /** The upstream's published revisions, to name the one the set's upstream resolves to. */
  upstream?: UpstreamIndex;
  /** The namespace (GitHub owner) of an upstream named without one: the management repository's. */
  namespace?: string;
  /** Package revisions' labels and annotations by revision name (`rpkg annotate`'s files). */
  revisions?: ReadonlyMap<string, ObjectMetadata>;
}

/**
 * The upstream as Porch's expressions see it, the upstream PackageRevision: its `name`
 * (`<repo>.<package with / as .>.<workspace>`, the revision the upstream resolves to), `namespace` (the
 * upstream repository's owner), `labels` and `annotations` (those `rpkg annotate` keeps for it); and
 * porchlight's `repo` and `package`. Without the published revisions at hand, the workspace
 * is the one the upstream names, else `v<N>` for a revision, else `main` (Porch's placeholder).
 */
function upstreamVariable(upstream: Upstream, options: ExpandOptions): ExprEnv[string] {
  const names = upstreamNames(upstream);
  if (isSourceUpstream(upstream)) return { ...names, namespace: "", labels: {}, annotations: {} };
  const slash = upstream.repo.indexOf("/");
  const repo = slash >= 0 ? upstream.repo.slice(slash + 1) : upstream.repo;
  const namespace = slash >= 0 ? upstream.repo.slice(0, slash) : (options.namespace ?? "");
  const state = options.upstream?.[upstream.repo]?.[upstream.package];
  const resolved = state ? resolveUpstream(upstream, state) : undefined;
  const workspace =
    upstream.workspaceName ??
    (resolved?.ok ? (resolved.target.workspace ?? resolved.target.revision) : undefined) ??
    upstream.revision ??
    "main";
  const name = `${repo}.${upstream.package.replaceAll("/", ".")}.${workspace}`;
  const meta = options.revisions?.get(name);
  return {
    ...names,
    name,
    namespace,
    labels: { ...meta?.labels },
    annotations: { ...meta?.annotations },
  };
}

/** The set's upstream as the generated variant's file would say it: Porch's placeholder is `revision: -1`. */
function asWritten(upstream: Upstream): PackageVariantInput["spec"]["upstream"] {
  if (isSourceUpstream(upstream) || !upstream.placeholder) return upstream;
  const { placeholder: _, ...rest } = upstream;
  return { ...rest, revision: -1 };
}

/** Evaluates one template expression; `path` is the field it is at, for a problem or a warning. */
type Evaluate = (expr: string, path: PathSegment[]) => string;

function renderVariant(
  setName: string,
  upstream: LoadedSet["set"]["spec"]["upstream"],
  upstreamValue: ExprEnv[string],
  entry: TargetEntry,
  repositories: readonly RepositoryInfo[],
  warn: (w: OwnerInName) => void = () => {},
): PackageVariantInput {
  const t = entry.template ?? {};
  const env: Record<string, ExprEnv[string]> = {
    repoDefault: entry.repoDefault,
    packageDefault: entry.packageDefault,
    upstream: upstreamValue,
    target: entry.target,
  };
  const evaluate = templateEvaluator(env, warn);
  const repo = t.downstream?.repoExpr
    ? evaluate(t.downstream.repoExpr, ["downstream", "repoExpr"])
    : (t.downstream?.repo ?? entry.repoDefault);
  const found = findRepository(repo, repositories);
  env.repository = found
    ? repositoryValue(found)
    : { name: repo, namespace: "", topics: [], labels: {}, annotations: {} };
  const pkg = t.downstream?.packageExpr
    ? evaluate(t.downstream.packageExpr, ["downstream", "packageExpr"])
    : (t.downstream?.package ?? entry.packageDefault);

  const spec: PackageVariantInput["spec"] = {
    upstream: asWritten(upstream),
    downstream: { repo, package: pkg },
    ...(t.adoptionPolicy ? { adoptionPolicy: t.adoptionPolicy } : {}),
    ...(t.deletionPolicy ? { deletionPolicy: t.deletionPolicy } : {}),
    ...optional("labels", mapWith(evaluate, t.labels, t.labelExprs, ["labelExprs"])),
    ...optional("annotations", mapWith(evaluate, t.annotations, t.annotationExprs, ["annotationExprs"])),
    ...(t.packageContext ? { packageContext: packageContextOf(t.packageContext, evaluate) } : {}),
    ...(t.pipeline ? { pipeline: pipelineOf(t.pipeline, evaluate) } : {}),
    ...optional("injectors", t.injectors && injectorsOf(t.injectors, evaluate)),
    ...(t.paused ? { paused: true } : {}),
  };
  return {
    apiVersion: PACKAGE_VARIANT_API_VERSION,
    kind: PACKAGE_VARIANT_KIND,
    metadata: {
      // A selected repository of another account keeps its owner in the name: `other/cluster-02` and the
      // management installation's `cluster-02` must not share a variant (and so a branch).
      name: packageVariantName(setName, repo, pkg, {
        keepOwner: entry.elsewhere && repo === entry.repoDefault,
      }),
      annotations: { [VARIANT_SET_ANNOTATION]: setName },
    },
    spec,
  };
}

/**
 * Evaluates template expressions in `env` (read as it is at each call: `repository` is bound once the
 * downstream repository is known); an expression that cannot be evaluated is a TemplateError at its path.
 */
function templateEvaluator(env: ExprEnv, warn: (w: OwnerInName) => void): Evaluate {
  return (expr, path) => {
    try {
      const value = evaluateExpression(expr, env);
      // `repository.name` (and a selected repository's `target.name`) of another account is `owner/name`:
      // right where the downstream repository is named, likely not what is meant anywhere else.
      if (path[0] !== "downstream" || path[1] !== "repoExpr") {
        for (const variable of ["repository", "target"] as const) {
          const bound = env[variable];
          const name =
            bound !== undefined && typeof bound === "object" && !Array.isArray(bound)
              ? (bound as { readonly [key: string]: ExprValue | undefined }).name
              : undefined;
          if (typeof name === "string" && name.includes("/") && readsName(expr, variable))
            warn({ path, variable, name, value, meaning: meaningOf(path) });
        }
      }
      return value;
    } catch (err) {
      if (err instanceof ExpressionError)
        throw new TemplateError(path, `cannot evaluate ${JSON.stringify(expr)}: ${err.message}`);
      throw err;
    }
  };
}

/** A map field: its plain entries, then each `…Exprs` entry with key and value evaluated where given. */
function mapWith(
  evaluate: Evaluate,
  plain: Record<string, string> | undefined,
  exprs: MapExpr[] | undefined,
  at: PathSegment[],
): Record<string, string> | undefined {
  if (!plain && !exprs) return undefined;
  const out: Record<string, string> = { ...plain };
  exprs?.forEach((m, i) => {
    const key = m.keyExpr !== undefined ? evaluate(m.keyExpr, [...at, i, "keyExpr"]) : (m.key ?? "");
    out[key] = m.valueExpr !== undefined ? evaluate(m.valueExpr, [...at, i, "valueExpr"]) : (m.value ?? "");
  });
  return out;
}

function packageContextOf(
  pc: NonNullable<PackageVariantTemplate["packageContext"]>,
  evaluate: Evaluate,
): NonNullable<PackageVariantInput["spec"]["packageContext"]> {
  return {
    ...optional("data", mapWith(evaluate, pc.data, pc.dataExprs, ["packageContext", "dataExprs"])),
    ...optional(
      "removeKeys",
      pc.removeKeys || pc.removeKeyExprs
        ? // Porch's copyAndOverlayStringSlice: each key once, in Go's sort.Strings order.
          [
            ...new Set([
              ...(pc.removeKeys ?? []),
              ...(pc.removeKeyExprs ?? []).map((e, i) =>
                evaluate(e, ["packageContext", "removeKeyExprs", i]),
              ),
            ]),
          ].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
        : undefined,
    ),
  };
}

function pipelineOf(
  pipeline: NonNullable<PackageVariantTemplate["pipeline"]>,
  evaluate: Evaluate,
): NonNullable<PackageVariantInput["spec"]["pipeline"]> {
  const functions = (list: typeof pipeline.mutators, field: string) =>
    list?.map(({ configMapExprs, ...fn }, i) => {
      const at: PathSegment[] = ["pipeline", field, i, "configMapExprs"];
      const configMap = mapWith(evaluate, fn.configMap, configMapExprs, at);
      return configMap ? { ...fn, configMap } : fn;
    });
  return {
    ...optional("mutators", functions(pipeline.mutators, "mutators")),
    ...optional("validators", functions(pipeline.validators, "validators")),
  };
}

function injectorsOf(
  injectors: NonNullable<PackageVariantTemplate["injectors"]>,
  evaluate: Evaluate,
): NonNullable<PackageVariantInput["spec"]["injectors"]> {
  return injectors.map((inj, i) => ({
    ...optional("group", inj.group),
    ...optional("version", inj.version),
    ...optional("kind", inj.kind),
    name:
      inj.nameExpr !== undefined ? evaluate(inj.nameExpr, ["injectors", i, "nameExpr"]) : (inj.name ?? ""),
  }));
}

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

function repositoryValue(repo: RepositoryInfo): ExprEnv[string] {
  const fullName = repo.fullName ?? repo.name;
  return {
    name: repo.name,
    // A Porch namespace is a GitHub owner.
    namespace: fullName.includes("/") ? fullName.slice(0, fullName.indexOf("/")) : "",
    fullName: repo.fullName ?? repo.name,
    topics: repo.topics ?? [],
    labels: { ...repo.labels },
    annotations: { ...repo.annotations },
  };
}
