import { minimatch } from "minimatch";
import { Document, isMap, isScalar, isSeq, type Scalar, type YAMLMap } from "yaml";
import { goQuoteString } from "../../api/go-quote.js";
import { indexAnnotation, pathAnnotation } from "../../kpt/resource.js";
import { setLineComment } from "../../kpt/yaml/comments.js";
import { atLeast, newestRelease } from "../releases.js";
import type { BuiltinFunction, FunctionResult, ResourceList } from "../types.js";
import { ensureChildMap, rootMap, setScalarImplied } from "./util/catalog-fields.js";
import { stringEntries } from "./util/catalog-fnconfig.js";
import { catalogFunction } from "./util/catalog-function.js";
import { isAbsolutePath, pathMatches } from "./util/catalog-path-match.js";
import { errorResult } from "./util/catalog-results.js";
import { compileGoRegexp, type GoRegexp } from "./util/go-regexp.js";

/**
 * search-replace, as gcr.io/kpt-fn/search-replace:v0.1.0 to v0.2.0 and ghcr.io/kptdev's v0.2.3 do it: finds scalar fields by value
 * (`by-value`), by regular expression (`by-value-regex`) and/or by path pattern (`by-path`), and can
 * set their value (`put-value`, with `${1}` capture groups) or a line comment (`put-comment`). An
 * absolute `by-path` with only `put-value` creates the field when missing. One result per match.
 *
 * The releases differ in what they accept and report:
 * - v0.1.0: any `data` key is ignored unless it is a matcher; no matches give no results at all.
 * - v0.1.1 (search-replace/v0.1.1): an unknown key is an error, at least one of by-value,
 *   by-value-regex, by-path is required, and no matches give one "no matches" result.
 * - v0.2.0 (search-replace/v0.2.0): `by-file-path` (a doublestar glob over the resource's file path)
 *   limits the files searched, and a config without a search matcher matches nothing instead of failing.
 * - v0.2.3 (ghcr.io/kptdev/krm-functions-catalog, pinned by Porch's CLI tests): as v0.2.0. Built from the
 *   catalog's 2025 master, whose search-replace code is v0.2.0's; kyaml went from v0.10.21 to v0.12.0,
 *   which changes only the function's own output's list indentation, and kpt writes each file back in
 *   its own indentation.
 */

interface SearchReplaceConfig {
  byValue: string;
  byValueRegex: string;
  byPath: string;
  byFilePath: string;
  putValue: string;
  putComment: string;
}

class SearchReplaceError extends Error {}

const NEWEST = newestRelease("search-replace");

/** The matchers a release accepts, in the order its error message lists them. */
function matchers(release: string): string[] {
  // search-replace/v0.2.0 added by-file-path second.
  return atLeast(release, "v0.2.0")
    ? ["by-value", "by-file-path", "by-value-regex", "by-path", "put-value", "put-comment"]
    : ["by-value", "by-value-regex", "by-path", "put-value", "put-comment"];
}

/** The config's `data` (of any kind, as the catalog reads it), or the error message. */
function readSearchReplaceConfig(
  config: Document | undefined,
  release: string = NEWEST,
): SearchReplaceConfig | string {
  const data = config ? stringEntries(config.get("data", true)) : new Map<string, string>();
  // search-replace/v0.1.1 rejects keys that are not matchers; v0.1.0 ignores them.
  if (atLeast(release, "v0.1.1")) {
    const known = matchers(release);
    for (const key of data.keys()) {
      if (!known.includes(key)) {
        return `invalid matcher ${goQuoteString(key)}, must be one of [${known.map(goQuoteString).join(" ")}]`;
      }
    }
  }
  const cfg: SearchReplaceConfig = {
    byValue: data.get("by-value") ?? "",
    byValueRegex: data.get("by-value-regex") ?? "",
    byPath: data.get("by-path") ?? "",
    byFilePath: atLeast(release, "v0.2.0") ? (data.get("by-file-path") ?? "") : "",
    putValue: data.get("put-value") ?? "",
    putComment: data.get("put-comment") ?? "",
  };
  // Only search-replace/v0.1.1 requires a search matcher (v0.2.0 dropped the check again).
  const requiresMatcher = atLeast(release, "v0.1.1") && !atLeast(release, "v0.2.0");
  if (requiresMatcher && cfg.byValue === "" && cfg.byValueRegex === "" && cfg.byPath === "") {
    return 'at least one of ["by-value", "by-value-regex", "by-path"] must be provided';
  }
  if (cfg.byValue !== "" && cfg.byValueRegex !== "")
    return 'only one of ["by-value", "by-value-regex"] can be provided';
  return cfg;
}

function compile(pattern: string): GoRegexp {
  try {
    return compileGoRegexp(pattern);
  } catch (e) {
    throw new SearchReplaceError((e as Error).message);
  }
}

interface Match {
  file: string;
  /** The resource's index in its file (kpt's result does not say it; the bot places findings by it). */
  index: number | undefined;
  path: string;
  value: string;
}

/** Serialised scalar text, as the result shows it (quotes and comment included). */
function scalarText(node: Scalar): string {
  return new Document(node.clone()).toString().trim();
}

class SearchReplace {
  count = 0;
  readonly matches: Match[] = [];
  private readonly regex: GoRegexp | undefined;
  private file = "";
  private index: number | undefined;

  constructor(private readonly cfg: SearchReplaceConfig) {
    this.regex = cfg.byValueRegex === "" ? undefined : compile(cfg.byValueRegex);
  }

  get mutates(): boolean {
    return this.cfg.putComment !== "" || this.cfg.putValue !== "";
  }

  perform(doc: Document): void {
    const root = rootMap(doc);
    if (!root) return;
    const file = pathAnnotation(doc) ?? "";
    if (this.cfg.byFilePath !== "" && !minimatch(file, this.cfg.byFilePath, { dot: true })) return;
    this.file = file;
    this.index = indexAnnotation(doc);
    const { byPath, byValue, byValueRegex, putValue } = this.cfg;
    if (
      isAbsolutePath(byPath) &&
      !byPath.includes("[") &&
      byValue === "" &&
      byValueRegex === "" &&
      putValue !== ""
    ) {
      this.putByPath(doc, root);
      return;
    }
    this.walk(root, "");
  }

  /** Resolves `${n}` in `pattern` from the capture groups of `by-value-regex` over `value`. */
  private resolve(value: string, pattern: string): string {
    if (this.cfg.byValueRegex === "") return pattern;
    const groups = this.regex?.submatch(value) ?? [];
    let out = pattern;
    for (let i = 1; i < groups.length; i++) out = out.replaceAll(`\${${i}}`, groups[i] ?? "");
    if (/\$\{[0-9]+\}/.test(out)) throw new SearchReplaceError("unable to resolve capture groups");
    return out;
  }

  private walk(node: unknown, path: string): void {
    if (isMap(node)) {
      this.commentSequences(node, path);
      for (const pair of node.items) {
        const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
        this.walk(pair.value, `${path}.${key}`);
      }
    } else if (isSeq(node)) {
      node.items.forEach((item, i) => {
        this.walk(item, `${path}[${i}]`);
      });
    } else if (isScalar(node)) {
      this.visitScalar(node, path);
    }
  }

  private pathMatch(path: string): boolean {
    return pathMatches(this.cfg.byPath, path);
  }

  /** put-comment on a sequence matched by path: the comment goes after its key. */
  private commentSequences(map: YAMLMap, path: string): void {
    const comment = this.cfg.putComment;
    if (comment === "") return;
    for (const pair of map.items) {
      if (!isSeq(pair.value) || pair.value.items.length === 0 || !isScalar(pair.key)) continue;
      const pathToKey = `${path}.${String(pair.key.value).trim()}`;
      if (!this.pathMatch(pathToKey.startsWith(".") ? pathToKey.slice(1) : pathToKey)) continue;
      setLineComment(pair.key, putCommentText(comment));
      const items = pair.value.items.map((item) => (isScalar(item) ? scalarText(item) : String(item)));
      // The catalog prints the list in flow style, then leaves it in block style under the commented key.
      pair.value.flow = false;
      this.matches.push({
        file: this.file,
        index: this.index,
        path: `${this.cfg.byPath} # ${comment}`,
        value: `[${items.join(", ")}]`,
      });
      this.count += 1;
    }
  }

  private visitScalar(node: Scalar, path: string): void {
    const value = node.value === null || node.value === undefined ? "" : String(node.value);
    const { byValue, byPath, byValueRegex, putComment, putValue } = this.cfg;
    const pathMatch = this.pathMatch(path);
    const valueMatch = (byValue !== "" && byValue === value) || (this.regex?.test(value) ?? false);
    const matched =
      (valueMatch && pathMatch) ||
      (valueMatch && byPath === "") ||
      (pathMatch && byValue === "" && byValueRegex === "");
    if (!matched) return;
    this.count += 1;
    if (putComment !== "") setLineComment(node, putCommentText(this.resolve(value, putComment)));
    if (putValue !== "") setScalarImplied(node, this.resolve(value, putValue));
    if (this.file !== "") {
      this.matches.push({
        file: this.file,
        index: this.index,
        path: path.startsWith(".") ? path.slice(1) : path,
        value: scalarText(node),
      });
    }
  }

  private putByPath(doc: Document, root: YAMLMap): void {
    const path = this.cfg.byPath.split(".");
    let map: YAMLMap | undefined = root;
    for (const key of path.slice(0, -1)) {
      map = map ? ensureChildMap(doc, map, key) : undefined;
      if (!map) throw new SearchReplaceError(`wrong node kind: expected MappingNode at ${key}`);
    }
    //  path is not empty: the caller splits a non-empty field path
    const last = path[path.length - 1]!;
    const existing = map.get(last, true);
    if (isScalar(existing)) {
      setScalarImplied(existing, this.cfg.putValue);
    } else {
      const created = doc.createNode(this.cfg.putValue) as Scalar;
      setScalarImplied(created, this.cfg.putValue);
      map.set(doc.createNode(last), created);
    }
    this.matches.push({
      file: this.file,
      index: this.index,
      path: this.cfg.byPath,
      value: this.cfg.putValue,
    });
    this.count += 1;
  }
}

function results(sr: SearchReplace, release: string): FunctionResult[] {
  // search-replace/v0.1.1 added the "no matches" result; v0.1.0 reports nothing.
  if (sr.matches.length === 0) return atLeast(release, "v0.1.1") ? [{ message: "no matches" }] : [];
  return sr.matches.map((m) => ({
    message: sr.mutates
      ? `Mutated field value to ${goQuoteString(m.value)}`
      : `Matched field value ${goQuoteString(m.value)}`,
    field: { path: m.path },
    file: { path: m.file },
    ...(m.index === undefined ? {} : { document: m.index }),
  }));
}

/** search-replace reports any failure, of its config or of a search, as one quoted error result. */
function refuse(message: string, input: ResourceList): ResourceList {
  input.results.push(errorResult(`failed to perform search-replace operation: ${goQuoteString(message)}`));
  return input;
}

export const searchReplace: BuiltinFunction = catalogFunction({
  name: "search-replace",
  range: ["v0.1.0"],
  readConfig: readSearchReplaceConfig,
  refuse,
  run(input, cfg, release, ctx) {
    try {
      const sr = new SearchReplace(cfg);
      for (const doc of input.items) {
        ctx.signal?.throwIfAborted();
        sr.perform(doc);
      }
      input.results.push(...results(sr, release));
    } catch (e) {
      if (e instanceof SearchReplaceError) return refuse(e.message, input);
      throw e;
    }
    return input;
  },
});

/** A put-comment as the line comment it becomes: `# ` and its text, its own leading `#` (and a space) dropped. */
function putCommentText(comment: string): string {
  const text = comment.replace(/^#\s?/, "");
  return text === "" ? "#" : `# ${text}`;
}
