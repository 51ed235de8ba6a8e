import { posix } from "node:path";
import { performance } from "node:perf_hooks";
import { type Document, isMap } from "yaml";
import { UnknownFunctionError } from "../fn/function-registry.js";
import { FunctionExitError, FunctionStartError } from "../fn/runtime/errors.js";
import type { FunctionRunner, FunctionSpec, RunOutput } from "../fn/runtime/types.js";
import { FunctionError, type ResourceList } from "../fn/types.js";
import { ANNOTATION, LEGACY_ANNOTATION } from "../kpt/annotations.js";
import type { Selector } from "../kpt/kptfile.js";
import { notKrmMessage, notKrmReason } from "../kpt/krm.js";
import { getAnnotation, getAnnotationsOf, indexAnnotation, pathAnnotation } from "../kpt/resource.js";
import {
  assignIds,
  clearIds,
  FILE_ANNOTATION_KEYS,
  FILE_ANNOTATION_PAIRS,
  type ItemNotes,
  placeNewItems,
  setKptAnnotation,
} from "./items.js";
import type { RenderEnv, RenderEvent } from "./render.js";
import type { FunctionRecord } from "./results.js";
import { partition } from "./select.js";
import { builtinRoundTrip, restoreFromInput } from "./sync.js";

/** A pipeline's run: what runs its steps, and what it knows of its items (ItemNotes). */
export interface StepContext extends ItemNotes {
  env: RenderEnv;
  runners: {
    builtin: FunctionRunner;
    exec: (baseDir: string) => FunctionRunner;
    container?: FunctionRunner;
  };
  records: FunctionRecord[];
  emit: (event: RenderEvent) => void;
  /** Documents already found to be KRM resources (a builtin changes documents in place; no need to look again). */
  checked: WeakSet<Document>;
}

export interface Step {
  spec: FunctionSpec;
  functionConfig?: Document;
  selectors: readonly Selector[];
  exclude: readonly Selector[];
  /** A validator's output is discarded: it can only pass or fail. */
  validator: boolean;
  /** Absolute directory of the package whose pipeline this is (new resources belong to it). */
  packageDir: string;
  execBaseDir: string;
  /**
   * New resources are given a file in the package (default). Not where the output is a ResourceList
   * rather than files (`kpt fn eval -`): kpt leaves the items as the function returned them.
   */
  placeNew?: boolean;
}

/** A function failed; `shown` when its results, stderr and exit code were already reported as events. */
export class StepFailed extends Error {
  constructor(
    message: string,
    readonly shown: boolean,
  ) {
    super(message);
    this.name = "StepFailed";
  }
}

/**
 * Runs one pipeline step over the items and returns the items after it: the selected items go to the
 * function; its output takes their places (matched by identity or kpt's id annotation), resources it
 * created are appended, the ones it dropped are gone, the rest stay as they were.
 */
export async function runStep(step: Step, items: Document[], ctx: StepContext): Promise<Document[]> {
  const name = step.spec.image ?? step.spec.exec ?? "";
  const filtered = step.selectors.length > 0 || step.exclude.length > 0;
  const { selected } = filtered ? partition(items, step.selectors, step.exclude) : { selected: items };
  ctx.emit({ type: "running", name, ...(filtered ? { selected: selected.length } : {}) });
  const started = performance.now();
  const record: FunctionRecord = step.spec.image
    ? { image: name, exitCode: 0, results: [], packageDir: step.packageDir, validator: step.validator }
    : { exec: name, exitCode: 0, results: [], packageDir: step.packageDir, validator: step.validator };
  let output: RunOutput;
  let ranProcess = false;
  // A builtin may add to the very array it was given: remember what it got before it runs.
  const givenItems = selected.slice();
  // The file annotations each input has now: known for what was read into the pipeline or handed back
  // by a builtin, read for the rest (a process's output). A builtin's output is its input.
  for (let i = 0; i < givenItems.length; i++) {
    const d = givenItems[i]!; // i < givenItems.length
    if (!ctx.places.has(d)) ctx.places.set(d, fileAnnotations(d));
  }
  let placesBefore: ((out: Document) => readonly (string | undefined)[] | undefined) | undefined;
  try {
    checkKrm(selected, ctx);
    const runner = pickRunner(step, ctx);
    const process = runner.kind !== "builtin";
    ranProcess = process;
    const input = step.validator && !process ? selected.map((d) => d.clone()) : selected;
    if (process) assignIds(input, !step.validator);
    const list: ResourceList = { items: input, results: [] };
    if (step.functionConfig) list.functionConfig = step.functionConfig;
    output = await runner.run(step.spec, list, ctx.env.run);
    if (process) {
      const ids = new Map(output.items.map((d) => [d, idOf(d)] as const));
      placesBefore = (out) => {
        const id = ids.get(out);
        // an id from 1 to input.length (checked below) names an input item
        return id !== undefined && id >= 1 && id <= input.length ? ctx.places.get(input[id - 1]!) : undefined;
      };
      restoreFromInput(input, output.items);
      clearIds(input);
    }
  } catch (e) {
    const ms = performance.now() - started;
    throw fail(e, name, ms, record, ctx);
  }
  // A builtin hands back the documents it was given, changed in place (most hand back just those, in
  // the same order: then no set of them is needed to tell them from new ones); a process's output, none.
  const given = ranProcess ? undefined : new GivenItems(givenItems, output.items);
  placesBefore ??= (out) => (given?.has(out) ? ctx.places.get(out) : undefined);
  // A builtin that keeps the file annotations hands back its input with them as they were. What the
  // reconciling leaves is what the next step starts from (a process's output is read again then).
  const builtin = given !== undefined && !step.validator;
  const kept = builtin && output.untouched?.fileAnnotations === true;
  // Kept, and every output item one it was given (whose file annotations are known): nothing to do.
  if (!(kept && given.all)) {
    reconcileFileAnnotations(
      output.items,
      placesBefore,
      kept,
      builtin ? (d, now) => given.has(d) && ctx.places.set(d, now) : () => {},
    );
  }
  record.results = output.results;
  if (output.stderr) record.stderr = output.stderr;
  ctx.records.push(record);
  ctx.emit({
    type: "pass",
    name,
    ms: performance.now() - started,
    results: output.results,
    ...(output.stderr ? { stderr: output.stderr } : {}),
  });
  if (step.validator) return items;
  const after = filtered ? merge(items, selected, output.items) : output.items;
  if (!given) {
    clearIds(output.items);
    if (step.placeNew !== false) {
      placeNewItems(output.items, step.packageDir);
      checkPaths(output.items);
    }
  } else {
    const noFolded = output.untouched?.folded === true;
    const out = output.items;
    // the container reads the ResourceList kpt writes it: all but its last item have one after them
    const lastGiven = givenItems[givenItems.length - 1];
    for (let i = 0; i < out.length; i++) {
      const d = out[i]!; // i < out.length
      if (!given.has(d)) continue;
      const foldedFree = noFolded && ctx.foldedFree.has(d);
      builtinRoundTrip(d, foldedFree, d !== lastGiven);
      if (!foldedFree) ctx.foldedFree.add(d);
    }
    // A builtin hands back the documents it was given, changed in place: only new ones need a place.
    const created = given.all ? [] : out.filter((d) => !given.has(d));
    if (created.length > 0 && step.placeNew !== false) {
      placeNewItems(created, step.packageDir);
      checkPaths(output.items);
    }
  }
  return after;
}

function pickRunner(step: Step, ctx: StepContext): FunctionRunner {
  const spec = step.spec;
  if (spec.exec) return ctx.runners.exec(step.execBaseDir);
  const image = spec.image ?? "";
  if (ctx.env.registry.find(image)) return ctx.runners.builtin;
  // An image no builtin reproduces (another function, or a release of one that porchlight does not
  // reproduce) runs as the image itself where containers are allowed, and is refused otherwise.
  if (ctx.runners.container) return ctx.runners.container;
  throw ctx.env.registry.refusal(image, {
    execAllowed: ctx.env.allowExec,
    containerAllowed: ctx.env.allowContainer,
    ...(ctx.env.allowedBy ? { allowedBy: ctx.env.allowedBy } : {}),
  });
}

function fail(e: unknown, name: string, ms: number, record: FunctionRecord, ctx: StepContext): StepFailed {
  if (e instanceof FunctionExitError) {
    record.exitCode = e.exitCode;
    record.stderr = e.stderr;
    record.results = e.results;
    ctx.records.push(record);
    ctx.emit({ type: "fail", name, ms, results: e.results, stderr: e.stderr, exitCode: e.exitCode });
    return new StepFailed(e.message, true);
  }
  if (e instanceof FunctionStartError) {
    record.exitCode = 1;
    ctx.records.push(record);
    ctx.emit({ type: "fail", name, ms, results: [] });
    return new StepFailed(e.message, false);
  }
  if (e instanceof FunctionError && !(e instanceof UnknownFunctionError) && e.results.length > 0) {
    // A builtin that reports errors fails as its catalog container would: results, then exit code 1.
    record.exitCode = 1;
    record.results = e.results;
    ctx.records.push(record);
    ctx.emit({ type: "fail", name, ms, results: e.results, exitCode: 1 });
    return new StepFailed(e.message, true);
  }
  ctx.emit({ type: "fail", name, ms, results: [] });
  return new StepFailed(e instanceof Error ? e.message : String(e), false);
}

/**
 * kpt refuses to hand a function anything but KRM resources, and a package with no pipeline refuses
 * them too: nothing is written, and the message names the file.
 */
export function checkKrm(items: readonly Document[], ctx: Pick<StepContext, "sources" | "checked">): void {
  for (let i = 0; i < items.length; i++) {
    const doc = items[i]!; // i < items.length
    if (ctx.checked.has(doc)) continue;
    const path = pathAnnotation(doc) ?? ctx.sources.get(doc);
    const reason = notKrmReason(doc, path);
    if (reason) throw new FunctionError(notKrmMessage(path ?? "(unknown file)", reason));
    ctx.checked.add(doc);
  }
}

function idOf(doc: Document): number | undefined {
  const id = getAnnotation(doc, ANNOTATION.internalId) ?? getAnnotation(doc, LEGACY_ANNOTATION.id);
  const n = id === undefined ? Number.NaN : Number(id);
  return Number.isInteger(n) ? n : undefined;
}

function fileAnnotations(doc: Document): (string | undefined)[] {
  return getAnnotationsOf(doc, FILE_ANNOTATION_KEYS);
}

/**
 * kyaml's ReconcileInternalAnnotations, which kpt's pipeline runs after every function: where a function
 * changed one form of a file annotation (`internal.config.kubernetes.io/path` or the older
 * `config.kubernetes.io/path`, same for index), the other follows (the internal form wins when both
 * changed); a resource carrying only one form gets the other. `settled` gets each resource's file
 * annotations as it leaves them; `kept`: the function changed none (nothing to do where they are known).
 */
function reconcileFileAnnotations(
  items: readonly Document[],
  before: (out: Document) => readonly (string | undefined)[] | undefined,
  kept: boolean,
  settled: (doc: Document, now: readonly (string | undefined)[]) => void,
): void {
  for (const doc of items) {
    if (!isMap(doc.contents)) continue;
    const was = before(doc);
    if (was && kept) continue;
    const now = fileAnnotations(doc);
    FILE_ANNOTATION_PAIRS.forEach(([internal, legacy], p) => {
      const nowInternal = now[2 * p];
      const nowLegacy = now[2 * p + 1];
      if (nowInternal !== undefined && nowLegacy === undefined) {
        setKptAnnotation(doc, legacy, nowInternal);
        now[2 * p + 1] = nowInternal;
      } else if (nowLegacy !== undefined && nowInternal === undefined) {
        setKptAnnotation(doc, internal, nowLegacy);
        now[2 * p] = nowLegacy;
      } else if (was && nowInternal !== undefined && nowLegacy !== undefined) {
        if (nowInternal !== was[2 * p]) {
          if (nowLegacy !== nowInternal) {
            setKptAnnotation(doc, legacy, nowInternal);
            now[2 * p + 1] = nowInternal;
          }
        } else if (nowLegacy !== was[2 * p + 1]) {
          setKptAnnotation(doc, internal, nowLegacy);
          now[2 * p] = nowLegacy;
        }
      }
    });
    settled(doc, now);
  }
}

/** No two resources may claim the same file and index (kpt's path invariants, on cleaned paths). */
function checkPaths(items: readonly Document[]): void {
  const seen = new Set<string>();
  for (const doc of items) {
    const index = indexAnnotation(doc);
    if (index === undefined) continue;
    const path = posix.normalize(pathAnnotation(doc) ?? "");
    const key = `${getAnnotation(doc, ANNOTATION.packagePath) ?? ""}\0${path}\0${index}`;
    if (seen.has(key)) {
      throw new FunctionError(`resource at path "${path}" and index "${index}" already exists`);
    }
    seen.add(key);
  }
}

/**
 * Which of a builtin's output items it was given: `all` when the output is exactly what it got, in the
 * same order (a builtin that changes its items in place); else a set of what it got answers.
 */
class GivenItems {
  readonly all: boolean;
  private set: Set<Document> | undefined;

  constructor(
    private readonly given: readonly Document[],
    output: readonly Document[],
  ) {
    let all = output.length === given.length;
    for (let i = 0; all && i < given.length; i++) all = output[i] === given[i];
    this.all = all;
  }

  has(doc: Document): boolean {
    if (this.all) return true;
    this.set ??= new Set(this.given);
    return this.set.has(doc);
  }
}

/** Puts a selective function's output back in the places of the items it was given. */
function merge(
  items: readonly Document[],
  selected: readonly Document[],
  output: readonly Document[],
): Document[] {
  const selectedSet = new Set(selected);
  const byId = new Map<string, Document>();
  selected.forEach((doc, i) => {
    byId.set(String(i + 1), doc);
  });
  const replacement = new Map<Document, Document>();
  const created: Document[] = [];
  for (const out of output) {
    if (selectedSet.has(out)) {
      replacement.set(out, out);
      continue;
    }
    const id = getAnnotation(out, ANNOTATION.internalId) ?? getAnnotation(out, LEGACY_ANNOTATION.id);
    const original = id !== undefined ? byId.get(id) : undefined;
    if (original && !replacement.has(original)) replacement.set(original, out);
    else created.push(out);
  }
  const result: Document[] = [];
  for (const doc of items) {
    if (!selectedSet.has(doc)) result.push(doc);
    else {
      const r = replacement.get(doc);
      if (r) result.push(r);
    }
  }
  for (const c of created) result.push(c);
  return result;
}
