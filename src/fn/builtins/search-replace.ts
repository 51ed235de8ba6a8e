import { Document, isMap, isScalar, isSeq, type Scalar, type YAMLMap } from "yaml";
import { pathAnnotation } from "../../kpt/resource.js";
import { catalogReleases } from "../releases.js";
import type { BuiltinFunction, FunctionContext, FunctionResult, ResourceList } from "../types.js";
import { ensureChildMap, rootMap, setScalarImplied } from "./util/catalog-fields.js";
import { stringEntries } from "./util/catalog-fnconfig.js";
import { isAbsolutePath, pathMatches } from "./util/catalog-path-match.js";
import { errorResult, goQuote } from "./util/catalog-results.js";

/**
 * search-replace, as gcr.io/kpt-fn/search-replace:v0.2 does it: finds scalar fields by value
 * (`by-value`), by regular expression (`by-value-regex`) and/or by path pattern (`by-path`), and can
 * set their value (`put-value`, with `${1}` capture groups) or a line comment (`put-comment`). An
 * absolute `by-path` with only `put-value` creates the field when missing. One result per match.
 */

const MATCHERS = ["by-value", "by-value-regex", "by-path", "put-value", "put-comment"] as const;

export interface SearchReplaceConfig {
  byValue: string;
  byValueRegex: string;
  byPath: string;
  putValue: string;
  putComment: string;
}

class SearchReplaceError extends Error {}

/** The config's `data` (of any kind, as the catalog reads it), or the error message. */
export function readSearchReplaceConfig(config: Document | undefined): SearchReplaceConfig | string {
  const data = config ? stringEntries(config.get("data", true)) : new Map<string, string>();
  for (const key of data.keys()) {
    if (!(MATCHERS as readonly string[]).includes(key)) {
      return `invalid matcher ${goQuote(key)}, must be one of [${MATCHERS.map(goQuote).join(" ")}]`;
    }
  }
  const cfg: SearchReplaceConfig = {
    byValue: data.get("by-value") ?? "",
    byValueRegex: data.get("by-value-regex") ?? "",
    byPath: data.get("by-path") ?? "",
    putValue: data.get("put-value") ?? "",
    putComment: data.get("put-comment") ?? "",
  };
  if (cfg.byValue === "" && cfg.byValueRegex === "" && cfg.byPath === "") {
    return 'at least one of ["by-value" "by-value-regex" "by-path"] must be provided';
  }
  if (cfg.byValue !== "" && cfg.byValueRegex !== "")
    return 'only one of ["by-value" "by-value-regex"] can be provided';
  return cfg;
}

function compile(pattern: string): RegExp {
  try {
    return new RegExp(pattern);
  } catch (e) {
    throw new SearchReplaceError(`error parsing regexp: ${(e as Error).message}`);
  }
}

interface Match {
  file: string;
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
  private readonly regex: RegExp | undefined;
  private file = "";

  constructor(private readonly cfg: SearchReplaceConfig) {
    this.regex = cfg.byValueRegex === "" ? undefined : compile(cfg.byValueRegex);
  }

  get mutates(): boolean {
    return this.cfg.putComment !== "" || this.cfg.putValue !== "";
  }

  perform(doc: Document): void {
    const root = rootMap(doc);
    if (!root) return;
    this.file = pathAnnotation(doc) ?? "";
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
    const groups = compile(this.cfg.byValueRegex).exec(value) ?? [];
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
      pair.key.comment = ` ${comment.replace(/^#\s?/, "")}`;
      const items = pair.value.items.map((item) => (isScalar(item) ? scalarText(item) : String(item)));
      this.matches.push({
        file: this.file,
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
    if (putComment !== "") node.comment = ` ${this.resolve(value, putComment).replace(/^#\s?/, "")}`;
    if (putValue !== "") setScalarImplied(node, this.resolve(value, putValue));
    if (this.file !== "") {
      this.matches.push({
        file: this.file,
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
    const last = path[path.length - 1]!;
    const existing = map.get(last, true);
    if (isScalar(existing)) {
      setScalarImplied(existing, this.cfg.putValue);
    } else {
      const created = doc.createNode(this.cfg.putValue) as Scalar;
      setScalarImplied(created, this.cfg.putValue);
      map.set(doc.createNode(last), created);
    }
    this.matches.push({ file: this.file, path: this.cfg.byPath, value: this.cfg.putValue });
    this.count += 1;
  }
}

function results(sr: SearchReplace): FunctionResult[] {
  if (sr.matches.length === 0) return [{ message: "no matches" }];
  return sr.matches.map((m) => ({
    message: sr.mutates
      ? `Mutated field value to ${goQuote(m.value)}`
      : `Matched field value ${goQuote(m.value)}`,
    field: { path: m.path },
    file: { path: m.file },
  }));
}

export const searchReplace: BuiltinFunction = {
  name: "search-replace",
  releases: catalogReleases("search-replace", "v0.2.0"),
  run(input: ResourceList, ctx: FunctionContext): ResourceList {
    const fail = (message: string) => {
      input.results.push(errorResult(`failed to perform search-replace operation: ${goQuote(message)}`));
      return input;
    };
    const cfg = readSearchReplaceConfig(input.functionConfig);
    if (typeof cfg === "string") return fail(cfg);
    try {
      const sr = new SearchReplace(cfg);
      for (const doc of input.items) {
        ctx.signal?.throwIfAborted();
        sr.perform(doc);
      }
      input.results.push(...results(sr));
    } catch (e) {
      if (e instanceof SearchReplaceError) return fail(e.message);
      throw e;
    }
    return input;
  },
};
