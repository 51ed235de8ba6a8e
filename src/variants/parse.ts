import { isMap, LineCounter, type Node, parseAllDocuments } from "yaml";
import type { z } from "zod";
import {
  formatQuotedFieldPath,
  type Located,
  locate,
  type PathSegment,
  type Position,
  pointAt,
  positionAt,
  positionOf,
} from "../kpt/yaml/yaml-locate.js";
import type { VariantProblem } from "./problem.js";
import {
  PACKAGE_VARIANT_API_VERSION,
  PACKAGE_VARIANT_KIND,
  type PackageVariant,
  packageVariantSchema,
} from "./schema.js";
import {
  PACKAGE_VARIANT_SET_API_VERSION,
  PACKAGE_VARIANT_SET_KIND,
  type PackageVariantSet,
  packageVariantSetSchema,
} from "./set-schema.js";

/** Where a variant was declared, so problems and plans can point back at it. */
interface VariantSource {
  file: string;
  line: number;
  column: number;
  /** The PackageVariantSet it was generated from, if any. */
  set?: string;
}

/** Finds the position of a field of the declaring document (the nearest existing parent if absent). */
type Locate = (path: readonly PathSegment[]) => Position;

export interface LoadedVariant {
  variant: PackageVariant;
  source: VariantSource;
  /** Where a field of this variant is in its file; for a generated variant, fields of its set's template. */
  locate?: Locate;
}

export interface LoadedSet {
  set: PackageVariantSet;
  source: VariantSource;
  locate?: Locate;
}

export interface ParsedVariantFile {
  variants: LoadedVariant[];
  sets: LoadedSet[];
  problems: VariantProblem[];
}

export interface ParseOptions {
  /**
   * The repository holding the variant files (`owner/name` or `name`): an upstream without `repo` means
   * a package of this repository, since the management repository defaults to the upstream one.
   */
  managementRepo?: string;
}

const KNOWN_KINDS = `${PACKAGE_VARIANT_KIND} (${PACKAGE_VARIANT_API_VERSION}) or ${PACKAGE_VARIANT_SET_KIND} (${PACKAGE_VARIANT_SET_API_VERSION})`;

/**
 * Reads a variant file (`.porchlight/variants/*.yaml`, several documents allowed). Never throws on bad
 * input: each document is either loaded or reported as problems with file, line, column and field.
 */
export function parseVariantFile(file: string, text: string, options: ParseOptions = {}): ParsedVariantFile {
  const result: ParsedVariantFile = { variants: [], sets: [], problems: [] };
  const lineCounter = new LineCounter();
  const docs = parseAllDocuments(text, { lineCounter, prettyErrors: false });
  for (const doc of docs) {
    if (doc.errors.length > 0) {
      for (const err of doc.errors) {
        result.problems.push({
          file,
          ...positionAt(err.pos[0], lineCounter),
          field: "",
          message: `not valid YAML: ${err.message.split("\n")[0]}`,
          hint: "fix the YAML syntax; the file's other documents are still read",
        });
      }
      continue;
    }
    if (doc.contents === null) continue;
    const root = doc.contents;
    const start = positionOf(root, lineCounter);
    /** A field of this document, or the key of the map that lacks it when it is missing. */
    const positionAtPath = (at: Located, preferKey = false): Position => {
      const node = pointAt(at, { preferKey, missingAtParentKey: true });
      return node ? positionOf(node, lineCounter) : start;
    };
    const problem = (
      path: PathSegment[],
      message: string,
      hint?: string,
      preferKey = false,
    ): VariantProblem => {
      const pos = positionAtPath(locate(root, path), preferKey);
      return { file, ...pos, field: formatQuotedFieldPath(path), message, ...(hint ? { hint } : {}) };
    };
    // a mapping's plain data (read only for a mapping) is an object: the check says so to the type checker
    const raw: unknown = isMap(root) ? doc.toJS() : undefined;
    if (!isRecord(raw)) {
      result.problems.push(
        problem([], `expected a ${KNOWN_KINDS} object`, "each YAML document must be one object"),
      );
      continue;
    }
    const metadata = raw.metadata;
    const name = isRecord(metadata) && typeof metadata.name === "string" ? metadata.name : undefined;
    const named = name ? { variant: name } : {};
    const source: VariantSource = { file, ...start };
    defaultUpstreamRepo(raw, options.managementRepo);
    const kind = raw.kind;
    if (kind !== PACKAGE_VARIANT_KIND && kind !== PACKAGE_VARIANT_SET_KIND) {
      result.problems.push({
        ...problem(
          ["kind"],
          kind === undefined ? "missing required field kind" : `unknown kind ${JSON.stringify(kind)}`,
          `a variant file holds ${KNOWN_KINDS}`,
        ),
        ...(kind === undefined ? { missing: true as const } : {}),
        ...named,
      });
      continue;
    }
    const refused = (error: z.ZodError) => {
      for (const issue of porchOrder(error.issues.flatMap(unionBranch)))
        result.problems.push({ ...issueToProblem(issue, root, problem, kind), ...named });
    };
    const locateField: Locate = (path) => positionAtPath(locate(root, path));
    // Porch reports what an absent spec lacks, field by field: an upstream, a downstream, targets.
    if (raw.spec === undefined || raw.spec === null) raw.spec = {};
    if (kind === PACKAGE_VARIANT_SET_KIND && isRecord(raw.spec) && raw.spec.targets == null)
      raw.spec.targets = [];
    if (kind === PACKAGE_VARIANT_KIND) {
      const parsed = packageVariantSchema.safeParse(raw);
      if (parsed.success) result.variants.push({ variant: parsed.data, source, locate: locateField });
      else refused(parsed.error);
    } else {
      const parsed = packageVariantSetSchema.safeParse(raw);
      if (parsed.success) result.sets.push({ set: parsed.data, source, locate: locateField });
      else refused(parsed.error);
    }
  }
  return result;
}

type MakeProblem = (
  path: PathSegment[],
  message: string,
  hint?: string,
  preferKey?: boolean,
) => VariantProblem;

/**
 * A value matching no form of a union (an upstream that is neither Porch's git form nor `oci` nor `tarball`) is reported
 * by the form it was meant as: the one that does not call a field of it unknown (an upstream with `oci` is
 * the OCI form), else the first (Porch's). Its issues get the union's path in front.
 */
function unionBranch(issue: z.core.$ZodIssue): z.core.$ZodIssue[] {
  if (issue.code !== "invalid_union" || issue.errors.length === 0) return [issue];
  const strays = (branch: z.core.$ZodIssue[]) =>
    branch.some((i) => i.code === "unrecognized_keys" && i.path.length === 0);
  const chosen = issue.errors.find((b) => !strays(b)) ?? (issue.errors[0] as z.core.$ZodIssue[]);
  return chosen.flatMap((i) => unionBranch({ ...i, path: [...issue.path, ...i.path] } as z.core.$ZodIssue));
}

/**
 * Issues in the order Porch lists its problems: one about a field (a target naming no kind of target)
 * before those about the fields inside it, which the schema checks first; otherwise as found.
 */
function porchOrder(issues: z.core.$ZodIssue[]): z.core.$ZodIssue[] {
  const out: z.core.$ZodIssue[] = [];
  const under = (inner: readonly PropertyKey[], outer: readonly PropertyKey[]) =>
    inner.length > outer.length && outer.every((s, i) => inner[i] === s);
  // An unknown key is about the key, under the object that holds it.
  const pathOf = (i: z.core.$ZodIssue): PropertyKey[] =>
    i.code === "unrecognized_keys" ? [...i.path, i.keys[0] ?? ""] : i.path;
  // Porch checks the upstream first.
  const upstreamFirst = (i: z.core.$ZodIssue) => (i.path[0] === "spec" && i.path[1] === "upstream" ? 0 : 1);
  for (const issue of [...issues].sort((a, b) => upstreamFirst(a) - upstreamFirst(b))) {
    const at = out.findIndex((o) => under(pathOf(o), pathOf(issue)));
    if (at < 0) out.push(issue);
    else out.splice(at, 0, issue);
  }
  return out;
}

function issueToProblem(
  issue: z.core.$ZodIssue,
  root: Node,
  problem: MakeProblem,
  kind: string,
): VariantProblem {
  const path = issue.path.filter((s): s is PathSegment => typeof s !== "symbol");
  if (issue.code === "unrecognized_keys") {
    const key = issue.keys[0] ?? "";
    const more = issue.keys.length > 1 ? ` (and ${issue.keys.slice(1).join(", ")})` : "";
    return problem(
      [...path, key],
      `unknown field ${JSON.stringify(key)}${more}`,
      "remove it or fix its spelling; the fields are Porch's",
      true,
    );
  }
  if (issue.code === "invalid_value" && path.at(-1) === "apiVersion") {
    return problem(
      path,
      `apiVersion must be ${issue.values.map(String).join(" or ")}`,
      "use Porch's apiVersion for this kind",
    );
  }
  if (!locate(root, path).exact && issue.code === "invalid_type") {
    // In the words of Porch's controller of each kind.
    const field = formatQuotedFieldPath(path);
    return {
      ...problem(
        path,
        kind === PACKAGE_VARIANT_SET_KIND
          ? `${field} is a required field`
          : `missing required field ${field}`,
        "add the field",
      ),
      missing: true,
    };
  }
  return problem(path, issueMessage(issue.message, path));
}

/** A schema's message with `{field}` replaced by the path of the field it is about, as Porch words it. */
export function issueMessage(message: string, path: readonly PathSegment[]): string {
  return message.replaceAll("{field}", formatQuotedFieldPath(path));
}

function defaultUpstreamRepo(raw: Record<string, unknown>, managementRepo: string | undefined): void {
  const upstream = isRecord(raw.spec) ? raw.spec.upstream : undefined;
  if (
    managementRepo &&
    isRecord(upstream) &&
    upstream.repo === undefined &&
    upstream.oci === undefined &&
    upstream.tarball === undefined
  ) {
    upstream.repo = managementRepo;
  }
}

/** A YAML mapping's plain data (not a list, not null). */
function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
