import {
  type Document,
  isMap,
  isScalar,
  isSeq,
  type Node,
  parseDocument,
  Scalar,
  type YAMLMap,
  type YAMLSeq,
} from "yaml";
import { goQuoteString, goStringList } from "../../api/go-quote.js";
import { indexAnnotation, pathAnnotation } from "../../kpt/resource.js";
import { headComment, lineComment, setHeadComment, setLineComment } from "../../kpt/yaml/comments.js";
import { MAP_KIND, NODE_TYPE, nodeKind, SCALAR_KIND, SEQ_KIND } from "../../kpt/yaml/yaml-nodes.js";
import { atLeast, catalogReleases, newestRelease } from "../releases.js";
import {
  type BuiltinFunction,
  type FieldPattern,
  FunctionError,
  type FunctionResult,
  type Rerun,
  UNSETTLED,
} from "../types.js";
import { FILE_FIELDS } from "./util/rerun-fields.js";
import {
  currentSetterValues,
  currentSetterValuesByName,
  isArrayPattern,
  referencesAny,
  refName,
  type SetterValue,
  setterPatternOf,
  setterRefs,
  substitute,
} from "./util/setter-pattern.js";
import { ScalarWriter, scalarText } from "./util/yaml-scalar.js";

/** A node's kind mark (yaml-nodes.ts), read inline in the walk below. */
type Marked = { [NODE_TYPE]?: symbol };

/**
 * apply-setters (kpt functions catalog v0.1.0 to v0.2.2): sets fields tagged with `# kpt-set: <pattern>`
 * comments from setter values given as the config's `data` (a ConfigMap's, or any kind's: the catalog
 * reads only `data`). Scalars get the pattern with the references replaced (`${image}:${tag}`;
 * references without a value keep what the current value holds for them); a sequence tagged on its key
 * gets the setter's value, a YAML list in a string. Comments stay, so setters can be applied again.
 *
 * The releases differ (each switch below names the tag that brought it):
 * - v0.1.0: no results at all, a failure is a bare error; sequences only tagged on their key and not
 *   empty; null fields are skipped; an empty value leaves the field empty (null); current values are
 *   matched against the pattern read as a regular expression.
 * - v0.1.1: one result per field set; an empty setter list and a run that sets nothing fail; flow and
 *   empty sequences are set, an empty value empties the list (`[]`) or writes `""`.
 * - v0.2.0: an empty setter list and a run that sets nothing pass, with "no matches for input setter(s)".
 * - v0.2.1: as v0.2.0 (a rebuild).
 * - v0.2.2 (ghcr.io/kptdev/krm-functions-catalog, the release Porch's blueprints pin): as v0.2.1. Its tag
 *   is newer than the catalog history readable here; that history, to the release workflow that published
 *   it (September 2025), changes nothing of apply-setters after v0.2.1's commit but its image name.
 */
export const applySetters: BuiltinFunction = {
  name: "apply-setters",
  releases: catalogReleases("apply-setters", "v0.1.0"),
  // A scalar keeps its style or becomes plain, quoted or literal (ScalarWriter); only an array setter
  // puts in new nodes, parsed from its value, and a value without `>` holds no folded scalar.
  untouched: (config) => ({ folded: readSetters(config).every((s) => !s.value.includes(">")) }),
  run(rl, ctx) {
    const release = ctx.release ?? NEWEST;
    const setters = readSetters(rl.functionConfig);
    const run = new SetterRun(setters, release);
    try {
      // apply-setters/v0.1.1 alone refuses an empty list (v0.2.0 dropped the check).
      if (setters.length === 0 && atLeast(release, "v0.1.1") && !atLeast(release, "v0.2.0")) {
        throw new SetterError("input setters list cannot be empty");
      }
      for (const item of rl.items) {
        ctx.signal?.throwIfAborted();
        run.applyTo(item);
      }
      if (run.changed === 0 && atLeast(release, "v0.1.1") && !atLeast(release, "v0.2.0")) {
        throw new SetterError("no matches for the input list of setters");
      }
    } catch (err) {
      if (!(err instanceof SetterError)) throw err;
      const message = `failed to apply setters: ${err.message}`;
      // apply-setters/v0.1.0 returns the error alone (stderr), with no structured result.
      throw new FunctionError(message, atLeast(release, "v0.1.1") ? [{ message, severity: "error" }] : []);
    }
    rl.results.push(...setterResults(run.takeChanges(), release));
    // No field under `metadata.annotations` set: the file annotations are as they were.
    if (!run.changedAnnotations) rl.untouched = { fileAnnotations: true };
    return rl;
  },
  // From v0.2.0 on, a run that sets nothing passes: each resource's share is the fields set in it (its
  // results), and an error stops the whole run (the list decides what it reports).
  split(config, given) {
    const release = given ?? NEWEST;
    if (!atLeast(release, "v0.2.0")) return undefined;
    const run = new SetterRun(readSetters(config), release);
    return {
      item(doc) {
        try {
          run.applyTo(doc);
        } catch (err) {
          if (!(err instanceof SetterError)) throw err;
          return { error: err.message };
        }
        const changes = run.takeChanges();
        return changes.length > 0 ? { changes } : undefined;
      },
      combine(shares) {
        const changes: Change[] = [];
        for (const share of shares as ({ changes?: Change[]; error?: string } | undefined)[]) {
          if (share?.error !== undefined) return undefined;
          if (share?.changes) changes.push(...share.changes);
        }
        return setterResults(changes, release);
      },
      rerun: SETTERS_RERUN,
    };
  },
};

/**
 * From v0.2.0 on, a run over its own output sets every tagged field again to the same value and reports
 * the same changes: a field's new value is its pattern (the comment, which the run keeps) filled with the
 * config's values, and only where a setter the pattern names is not given the field's current value (the
 * one this run wrote). A share that set nothing sets nothing again. It reads the fields it sets and the
 * file annotations, and writes the fields it set; where it set a file annotation the change's own file
 * would change, so nothing is promised.
 */
const SETTERS_RERUN: Rerun = {
  again(share) {
    const changes = (share as { changes?: Change[]; error?: string } | undefined)?.changes;
    if ((share as { error?: string } | undefined)?.error !== undefined) return UNSETTLED;
    if (changes?.some((c) => c.keys[0] === "metadata" && c.keys[1] === "annotations")) return UNSETTLED;
    return share;
  },
  reads(share) {
    return [...FILE_FIELDS, ...this.writes(share)];
  },
  writes(share) {
    const out: FieldPattern[] = [];
    for (const c of (share as { changes?: Change[] } | undefined)?.changes ?? []) {
      out.push(c.keys);
      // A sequence set is written with its elements (scalars).
      if (c.seq) out.push([...c.keys, "*"]);
    }
    return out;
  },
};

const NEWEST = newestRelease("apply-setters");

class SetterError extends Error {}

/** The setter values of a function config's `data`, in the order given. */
function readSetters(config: Document | undefined): SetterValue[] {
  if (!config || !isMap(config.contents)) return [];
  const data = config.get("data", true);
  if (!isMap(data)) return [];
  return data.items.map((pair) => ({ name: textOf(pair.key), value: textOf(pair.value) }));
}

/** A setter value's text; null (`~` or nothing) is "", as kyaml's GetDataMap gives it. */
function textOf(node: unknown): string {
  return isScalar(node) && node.value !== null && node.value !== undefined ? scalarText(node) : "";
}

interface Change {
  file: string;
  /** The resource's index in its file (kpt's result does not say it; the bot places findings by it). */
  index: number | undefined;
  field: string;
  /** The field as keys, an element by its index (FieldPattern): what a second run sets again. */
  keys: string[];
  /** A sequence was set (its elements with it). */
  seq?: true;
  value: string;
}

/** The catalog's results of a run's changes (its result items carry no severity). */
function setterResults(changes: readonly Change[], release: string): FunctionResult[] {
  // apply-setters/v0.1.1 added results; v0.1.0 writes none.
  if (!atLeast(release, "v0.1.1")) return [];
  if (changes.length === 0) return [{ message: "no matches for input setter(s)" }];
  return changes.map((c) => {
    const result: FunctionResult = {
      message: `set field value to ${goQuoteString(c.value)}`,
      field: { path: c.field },
    };
    if (c.file) result.file = { path: c.file };
    if (c.index !== undefined) result.document = c.index;
    return result;
  });
}

/** One run over the items: walks each document once, edits tagged fields, records each change. */
class SetterRun {
  private readonly changes: Change[] = [];
  private readonly writer = new ScalarWriter();
  private doc: Document | undefined;
  /**
   * The visited resource's file, read before its first change (most resources have none): as it was
   * when the walk began, even where a setter then changes the path annotation itself.
   */
  private file: string | undefined;
  /** The visited resource's index in its file, read with `file`. */
  private index: number | undefined;
  /**
   * The field path of the node being visited: map keys (nodes) and sequence indexes, written out as
   * `.key` and `[index]` only for a field that is set (most fields are not).
   */
  private readonly path: unknown[] = [];
  private readonly patterns = new Map<string, CompiledPattern | null>();
  /** apply-setters/v0.1.0, whose switches below are asked at every mapping and tagged field. */
  private readonly legacy: boolean;

  constructor(
    private readonly setters: readonly SetterValue[],
    release: string,
  ) {
    this.legacy = !atLeast(release, "v0.1.1");
  }

  get changed(): number {
    return this.changes.length;
  }

  /** A field it set is a resource's `metadata`, its `metadata.annotations`, or under them. */
  changedAnnotations = false;

  /** Notes a change of the field at `path` (and `key` below it, for a sequence set on its key). */
  private noteChange(key?: unknown): void {
    const path = this.path;
    const length = path.length + (key === undefined ? 0 : 1);
    const at = (i: number): unknown => (i < path.length ? path[i] : key);
    if (length === 0 || keyText(at(0)) !== "metadata") return;
    if (length === 1 || keyText(at(1)) === "annotations") this.changedAnnotations = true;
  }

  applyTo(doc: Document): void {
    this.doc = doc;
    this.file = undefined;
    this.walk(doc.contents, false);
  }

  private fileOf(): string {
    if (this.file === undefined) {
      this.file = (this.doc && pathAnnotation(this.doc)) ?? "";
      this.index = this.doc && indexAnnotation(this.doc);
    }
    return this.file;
  }

  /** The changes noted since the last call, in the order made. */
  takeChanges(): Change[] {
    return this.changes.splice(0);
  }

  /**
   * Visits every node below `node`, sequences set on their key first at each mapping (visitMapping).
   * This walk visits every node of every resource, most of it before V8 optimises it: index loops, no
   * call per child (a child's kind read here, inline, once), no step into a scalar without a comment
   * (most of them: it holds no setter).
   */
  private walk(node: unknown, inFlow: boolean): void {
    const kind = nodeKind(node);
    if (kind === MAP_KIND) this.walkMap(node as YAMLMap, inFlow);
    else if (kind === SEQ_KIND) this.walkSeq(node as YAMLSeq, inFlow);
    else if (kind === SCALAR_KIND && lineComment(node as Scalar)) this.visitScalar(node as Scalar, inFlow);
  }

  private walkMap(map: YAMLMap, inFlow: boolean): void {
    const pairs = map.items;
    for (let i = 0; i < pairs.length; i++) {
      const value = pairs[i]!.value; // i < pairs.length
      if (typeof value === "object" && value !== null && (value as Marked)[NODE_TYPE] === SEQ_KIND) {
        this.visitMapping(map);
        break;
      }
    }
    const flow = inFlow || Boolean(map.flow);
    const path = this.path;
    for (let i = 0; i < pairs.length; i++) {
      const pair = pairs[i]!; // i < pairs.length
      const child = pair.value;
      // Nothing else holds a setter: not a scalar without a comment, an alias, a value that is no node.
      if (typeof child !== "object" || child === null) continue;
      const kind = (child as Marked)[NODE_TYPE];
      if (kind === SCALAR_KIND) {
        if (!lineComment(child as Scalar)) continue;
        path.push(pair.key);
        this.visitScalar(child as Scalar, flow);
      } else if (kind === MAP_KIND) {
        path.push(pair.key);
        this.walkMap(child as YAMLMap, flow);
      } else if (kind === SEQ_KIND) {
        path.push(pair.key);
        this.walkSeq(child as YAMLSeq, flow);
      } else continue;
      path.pop();
    }
  }

  private walkSeq(seq: YAMLSeq, inFlow: boolean): void {
    const flow = inFlow || Boolean(seq.flow);
    const items = seq.items;
    const path = this.path;
    for (let i = 0; i < items.length; i++) {
      const child = items[i];
      if (typeof child !== "object" || child === null) continue;
      const kind = (child as Marked)[NODE_TYPE];
      if (kind === SCALAR_KIND) {
        if (!lineComment(child as Scalar)) continue;
        path.push(i);
        this.visitScalar(child as Scalar, flow);
      } else if (kind === MAP_KIND) {
        path.push(i);
        this.walkMap(child as YAMLMap, flow);
      } else if (kind === SEQ_KIND) {
        path.push(i);
        this.walkSeq(child as YAMLSeq, flow);
      } else continue;
      path.pop();
    }
  }

  /** The path of the node being visited (and `key` below it), as keys. */
  private keysOf(key?: unknown): string[] {
    const keys = this.path.map((segment) =>
      typeof segment === "number" ? String(segment) : keyText(segment),
    );
    if (key !== undefined) keys.push(keyText(key));
    return keys;
  }

  private fieldPath(extra = ""): string {
    let joined = "";
    for (const segment of this.path) {
      joined += typeof segment === "number" ? `[${segment}]` : `.${keyText(segment)}`;
    }
    joined += extra;
    return joined.startsWith(".") ? joined.slice(1) : joined;
  }

  /** Sequences tagged on their key (block style) or after the flow sequence: `env: # kpt-set: ${env}`. */
  private visitMapping(map: YAMLMap): void {
    const pairs = map.items;
    for (let i = 0; i < pairs.length; i++) {
      const pair = pairs[i]!; // i < pairs.length
      const seq = pair.value;
      if (!isSeq(seq)) continue;
      const key = isNode(pair.key) ? pair.key : undefined;
      // apply-setters/v0.1.0 skips empty sequences and reads only the key's comment (block style).
      const legacy = this.legacy;
      if (legacy && (seq.items.length === 0 || seq.flow)) continue;
      const tag = seqSetterComment(key, seq);
      const pattern = setterPatternOf(tag?.line);
      if (!tag || pattern === "" || !referencesAny(pattern, this.setters)) continue;
      if (!isArrayPattern(pattern)) {
        throw new SetterError(`invalid setter pattern for array node: ${goQuoteString(pattern)}`);
      }
      const name = refName(pattern);
      const value = this.setters.find((s) => s.name === name)?.value ?? "";
      const field = this.fieldPath(`.${keyText(pair.key)}`);
      if (legacy && value === "") throw new SetterError("EOF"); // kyaml's Parse of an empty value
      const file = this.fileOf();
      tag.remove();
      if (value === "") {
        seq.items = [];
        seq.flow = true;
        setLineComment(seq, tag.line);
      } else {
        seq.items = parseArrayValue(value);
        seq.flow = false;
        if (key) setLineComment(key, joinComment(tag.line, lineComment(key)));
        else setHeadComment(seq, joinComment(tag.line, headComment(seq)));
      }
      this.changes.push({ file, index: this.index, field, keys: this.keysOf(pair.key), seq: true, value });
      this.noteChange(pair.key);
    }
  }

  private visitScalar(node: Scalar, inFlow: boolean): void {
    const legacy = this.legacy;
    // apply-setters/v0.1.0 skips null fields (kyaml's IsNilOrEmpty).
    if (legacy && (node.value === null || node.value === undefined)) return;
    const compiled = this.compile(setterPatternOf(lineComment(node)));
    if (!compiled) return;
    let next = compiled.filled;
    if (compiled.open) {
      // apply-setters/v0.1.1 escapes the pattern's text; v0.1.0 reads it as a regular expression.
      const current = legacy
        ? currentSetterValuesByName(compiled.pattern, scalarText(node))
        : currentSetterValues(compiled.pattern, scalarText(node));
      next = substitute(next, current);
    }
    const unresolved = compiled.open ? setterRefs(next) : [];
    if (unresolved.length > 0) {
      throw new SetterError(`values for setters ${goStringList(unresolved)} must be provided`);
    }
    const file = this.fileOf();
    if (legacy && next === "" && !isQuoted(node)) {
      // apply-setters/v0.1.0 leaves an empty plain value, which reads back as null.
      node.tag = undefined;
      node.value = null;
      (node as { source?: string }).source = "";
      node.type = Scalar.PLAIN;
    } else {
      this.writer.set(node, next, inFlow);
    }
    this.changes.push({ file, index: this.index, field: this.fieldPath(), keys: this.keysOf(), value: next });
    this.noteChange();
  }

  /** A scalar pattern with the given setters filled in, computed once per distinct pattern. */
  private compile(pattern: string): CompiledPattern | undefined {
    if (pattern === "") return undefined;
    let compiled = this.patterns.get(pattern);
    if (compiled === undefined) {
      compiled = null;
      if (referencesAny(pattern, this.setters)) {
        const filled = substitute(
          pattern,
          this.setters.map((s) => [s.name, s.value] as const),
        );
        compiled = { pattern, filled, open: setterRefs(filled).length > 0 };
      }
      this.patterns.set(pattern, compiled);
    }
    return compiled ?? undefined;
  }
}

/** A pattern with the setters given filled in; `open` when references remain for the current value to fill. */
interface CompiledPattern {
  pattern: string;
  filled: string;
  open: boolean;
}

function isQuoted(node: Scalar): boolean {
  return node.type === Scalar.QUOTE_DOUBLE || node.type === Scalar.QUOTE_SINGLE;
}

function isNode(value: unknown): value is Node {
  return isScalar(value) || isMap(value) || isSeq(value);
}

function keyText(key: unknown): string {
  return isScalar(key) ? scalarText(key) : String(key ?? "");
}

/** Where a sequence's setter comment sits, and how to take it off there. */
interface SeqTag {
  line: string;
  remove(): void;
}

function seqSetterComment(key: Node | undefined, seq: YAMLSeq): SeqTag | undefined {
  if (seq.flow) {
    const comment = lineComment(seq);
    if (!comment) return undefined;
    return { line: firstLine(comment), remove: () => setLineComment(seq, restLines(comment)) };
  }
  const keyComment = key ? lineComment(key) : undefined;
  if (key && keyComment) {
    return { line: firstLine(keyComment), remove: () => setLineComment(key, restLines(keyComment)) };
  }
  // The yaml library keeps a comment on the key's line (`env: # c`) as the sequence's head comment.
  const before = headComment(seq);
  if (!before) return undefined;
  return { line: firstLine(before), remove: () => setHeadComment(seq, restLines(before)) };
}

function firstLine(comment: string): string {
  const nl = comment.indexOf("\n");
  return nl < 0 ? comment : comment.slice(0, nl);
}

function restLines(comment: string): string | undefined {
  const nl = comment.indexOf("\n");
  return nl < 0 ? undefined : comment.slice(nl + 1);
}

function joinComment(line: string, rest: string | undefined): string {
  return rest ? `${line}\n${rest}` : line;
}

/** The items of an array setter's value, which must be a YAML sequence (`[a, b]` or `- a\n- b`). */
function parseArrayValue(value: string): unknown[] {
  const parsed = parseDocument(value);
  if (parsed.errors.length > 0 || !isSeq(parsed.contents)) {
    throw new SetterError(
      `input to array setter must be an array of values, but found ${goQuoteString(value)}`,
    );
  }
  return parsed.contents.items;
}
