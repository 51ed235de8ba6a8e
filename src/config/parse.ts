import { type Document, LineCounter, parseDocument } from "yaml";
import type { z } from "zod";
import {
  formatFieldPath,
  locate,
  pointAt,
  type Span,
  spanOf,
  spanOfOffsets,
} from "../kpt/yaml/yaml-locate.js";
import { describeValue, issueMessage } from "./issue-message.js";
import { knownFields } from "./known-fields.js";
import { nearestName } from "./nearest-name.js";
import { CONFIG_PATH, type ConfigProblem } from "./problem.js";
import { type RepoConfigFile, RepoConfigFileSchema } from "./schema.js";

export { CONFIG_PATH };

/** What `_extends` may name, as probot reads it: `repo`, `owner/repo`, optionally `:path.yml`. */
const EXTENDS = /^(?:([a-z\d](?:[a-z\d]|-(?=[a-z\d])){0,38})\/)?([-_.\w]+)(?::([-_./\w]+\.ya?ml))?$/i;

/** The repository and path an `_extends` value names, the owner defaulting to `owner`. */
export function extendsTarget(value: string, owner: string): { owner: string; repo: string; path: string } {
  const m = EXTENDS.exec(value);
  if (!m) throw new Error(`not a valid _extends: ${value}`);
  return { owner: m[1] ?? owner, repo: m[2] as string, path: m[3] ?? CONFIG_PATH };
}

export interface ConfigSource {
  /** The file's path in the repository; default `.github/porchlight.yml`. */
  path?: string;
  /** The branch, tag or commit it was read from. */
  ref?: string;
}

export type ParsedConfig =
  | {
      ok: true;
      config: RepoConfigFile;
      /** probot's `_extends`: the file this one starts from (`repo`, `owner/repo`, `owner/repo:path.yml`). */
      extends?: string;
    }
  | { ok: false; problems: ConfigProblem[] };

/**
 * Parses `.github/porchlight.yml` (or an organisation's defaults file). An empty file is a valid, empty
 * configuration. Anything wrong comes back as problems with the file, line, column and field, written
 * for the person who has to fix it; nothing is skipped silently.
 */
export function parseRepoConfig(text: string, source: ConfigSource = {}): ParsedConfig {
  const file = source.path ?? CONFIG_PATH;
  const problem = (span: Span, field: string, message: string): ConfigProblem => ({
    file,
    ref: source.ref,
    ...span,
    field,
    message,
  });

  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) {
    return {
      ok: false,
      problems: doc.errors.map((e) =>
        problem(spanOfOffsets(e.pos[0], e.pos[1], lineCounter), "", yamlMessage(e.code, e.message)),
      ),
    };
  }

  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: 100 }) ?? {};
  } catch (err) {
    // An alias bomb, or an alias to an anchor that does not exist.
    const reason = err instanceof Error ? err.message : String(err);
    return {
      ok: false,
      problems: [problem(spanOf(doc.contents, lineCounter), "", `cannot be read: ${reason}`)],
    };
  }
  // `_extends` is probot's, not a field of ours: it names the file this one starts from.
  let extendsName: string | undefined;
  if (value !== null && typeof value === "object" && !Array.isArray(value) && "_extends" in value) {
    const { _extends, ...fields } = value as Record<string, unknown>;
    if (typeof _extends !== "string" || !EXTENDS.test(_extends)) {
      const at = locate(doc.contents, ["_extends"]);
      return {
        ok: false,
        problems: [
          problem(
            spanOf(pointAt(at, { emptyAtKey: true }), lineCounter),
            "_extends",
            `must name a repository's file: \`repo\`, \`owner/repo\` or \`owner/repo:path.yml\`, not ${describeValue(_extends)}`,
          ),
        ],
      };
    }
    extendsName = _extends;
    value = fields;
  }
  const result = RepoConfigFileSchema.safeParse(value);
  if (result.success)
    return { ok: true, config: result.data, ...(extendsName !== undefined ? { extends: extendsName } : {}) };
  const problems = result.error.issues.flatMap((issue) =>
    issueProblems(issue, doc, value, lineCounter).map((p) => problem(p.span, p.field, p.message)),
  );
  problems.sort((a, b) => a.line - b.line || a.column - b.column);
  return { ok: false, problems };
}

/**
 * A problem found after parsing (a value the schema accepts but the app refuses, such as a registry
 * credential the operator does not allow), located at the field `path` of `text`.
 */
export function problemAt(
  text: string,
  source: ConfigSource,
  path: readonly (string | number)[],
  message: string,
): ConfigProblem {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false });
  const at = locate(doc.contents, [...path]);
  return {
    file: source.path ?? CONFIG_PATH,
    ref: source.ref,
    ...spanOf(pointAt(at, { emptyAtKey: true }), lineCounter),
    field: formatFieldPath([...path]),
    message,
  };
}

interface Located {
  span: Span;
  field: string;
  message: string;
}

function issueProblems(issue: z.core.$ZodIssue, doc: Document, value: unknown, lc: LineCounter): Located[] {
  if (issue.code === "unrecognized_keys") {
    const known = knownFields(RepoConfigFileSchema, issue.path);
    return issue.keys.map((key) => {
      const at = locate(doc.contents, [...issue.path, key]);
      const guess = nearestName(key, known);
      const hint = guess ? `did you mean \`${guess}\`?` : `known fields: ${known.join(", ")}`;
      return {
        span: spanOf(pointAt(at, { preferKey: true, emptyAtKey: true }), lc),
        field: formatFieldPath([...issue.path, key]),
        message: `unknown field \`${key}\`; ${hint}`,
      };
    });
  }
  const at = locate(doc.contents, issue.path);
  const node = pointAt(at, { emptyAtKey: true });
  const field = formatFieldPath(issue.path);
  if (issue.path.length === 0 && issue.code === "invalid_type") {
    return [
      {
        span: spanOf(node, lc),
        field,
        message: `the file must be a map of fields, not ${describeValue(value)}`,
      },
    ];
  }
  const present = at.exact;
  return [
    { span: spanOf(node, lc), field, message: issueMessage(issue, valueAt(value, issue.path), present) },
  ];
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let v = root;
  for (const segment of path) {
    if (v === null || typeof v !== "object") return undefined;
    v = (v as Record<PropertyKey, unknown>)[segment];
  }
  return v;
}

/** The yaml package's message, without the position (the problem carries it) and with a way out. */
function yamlMessage(code: string, message: string): string {
  if (code === "MULTIPLE_DOCS") return "holds more than one YAML document; remove the second `---`";
  if (code === "DUPLICATE_KEY") return "sets the same field twice; keep one";
  return `is not valid YAML: ${message.replace(/ at line \d+, column \d+:?[\s\S]*$/, "").trim()}`;
}
