import { createHash } from "node:crypto";
import { LRUCache } from "lru-cache";
import type { Document } from "yaml";
import { type FunctionRegistry, qualifiedImage } from "../../fn/function-registry.js";
import type { FunctionRunner, RunOptions, RunOutput } from "../../fn/runtime/types.js";
import type { ItemSplit, Untouched } from "../../fn/types.js";
import { ANNOTATION } from "../../kpt/annotations.js";
import { isKptfilePath, KPTFILE_NAME } from "../../kpt/kptfile.js";
import { type KptPackage, loadPackage } from "../../kpt/package.js";
import { getAnnotationsOf } from "../../kpt/resource.js";
import { type FileTree, fileOf } from "../../kpt/tree.js";
import { isYamlFileName } from "../../kpt/yaml/yamlfile.js";
import { functionConfigOf } from "../../render/fnconfig.js";
import { type RenderEnv, type RenderOutcome, render } from "../../render/render.js";
import { oldestFirst } from "./render-journal.js";
import { NOT_RUN, type SettledShares } from "./settled.js";

/** The default bound of a FileWorkMemo: what its entries are counted at (see FileWorkMemo). */
const DEFAULT_FILE_WORK_BYTES = 64 * 1024 * 1024;

/** What a share of one step's run over one resource is counted at, against the bound. */
const SHARE_BYTES = 200;

/** The annotations that say which file (and package) an item is written to. */
const PLACE_KEYS = [
  ANNOTATION.internalPath,
  ANNOTATION.path,
  ANNOTATION.internalIndex,
  ANNOTATION.index,
  ANNOTATION.packagePath,
];

/** One resource file's part of a render of its package: what the file became, and what its resources reported. */
export interface FileWork {
  /** The file after the render: the same bytes as before, other bytes, or none (the file goes). */
  out: "same" | Buffer | null;
  /** Its documents (counted against maxResources). */
  docs: number;
  /** For each step of the pipeline, each document's share of the step's results (ItemSplit), in order. */
  shares: unknown[][];
  /** What it is counted at against the bound. */
  size: number;
}

/**
 * The renders of resource files, kept across renders (the bot's): under a key of the file's bytes (its
 * blob SHA) and path and everything else its render reads (the package's Kptfile, with the pipeline and every
 * function's config, and what the renderer may run), the file it became and each of its resources'
 * shares of each step's results. Bounded: past `maxBytes` (output bytes, and SHARE_BYTES for each share),
 * the least recently used files go. Forgetting one only costs the time to render the file again.
 */
export class FileWorkMemo {
  private readonly entries: LRUCache<string, FileWork>;
  /** Files whose kept render was used. */
  reused = 0;
  /** Files rendered on their own and kept, in renders answered so. */
  rendered = 0;

  constructor(readonly maxBytes = DEFAULT_FILE_WORK_BYTES) {
    this.entries = new LRUCache<string, FileWork>({ maxSize: maxBytes, sizeCalculation: (w) => w.size });
  }

  get(key: string): FileWork | undefined {
    return this.entries.get(key);
  }

  set(key: string, work: FileWork): void {
    if (work.size <= this.maxBytes) {
      this.entries.set(key, work);
      if (this.journaled) this.fresh.push([key, work]);
    } else this.entries.delete(key);
  }

  /** Whether entries kept are noted for takeFresh (a renderer with a RenderJournal drains them). */
  journaled = false;

  /** Entries kept since the last call (for a RenderJournal), in the order they were kept. */
  takeFresh(): [string, FileWork][] {
    return this.fresh.splice(0);
  }

  /** Puts back entries a RenderJournal read (earlier entries first: the last is the most recently used). */
  restore(entries: readonly [string, FileWork][]): void {
    for (const [key, work] of entries) if (work.size <= this.maxBytes) this.entries.set(key, work);
  }

  /** Every entry, least recently used first. */
  kept(): [string, FileWork][] {
    return oldestFirst(this.entries);
  }

  private readonly fresh: [string, FileWork][] = [];

  /** What the kept files are counted at. */
  get size(): number {
    return this.entries.calculatedSize;
  }
}

/** A pipeline step every resource's share of which can be kept: a builtin run by item. */
interface SplitStep {
  image: string;
  split: ItemSplit;
  untouched: Untouched;
  /** The package whose pipeline it is in: it runs over the resources of that package and the packages below. */
  pkg: string;
}

/**
 * kpt fn render of packages whose pipelines run by item (FileWorkMemo): only the resource files the memo
 * does not hold are rendered, with every Kptfile (they are rendered every time), and each step's
 * results are combined from every resource's share in kpt's item order (depth first, each package's
 * Kptfile and then its files by path) as the function's own run would report them. Where a resource
 * file ends in a comment line, the files that may hold a list's last item are rendered too (LastItems).
 * Undefined where the whole tree must be rendered: a `.krmignore`, a step that
 * is not a builtin run by item for its release
 * and config (a config file, selectors, a validator, exec or container functions), a render of the
 * files that fails, a resource that changes file, a step whose results the whole list decides
 * (ItemSplit: a duplicate id, an error), more resources than `maxResources`. The outcome's results
 * may be the memo's own shares: read them, never change them.
 */
export async function renderByFile(
  tree: FileTree,
  /** Each file's git blob SHA (the renderer's key of the whole tree is made of them too). */
  shas: ReadonlyMap<string, string>,
  env: RenderEnv,
  memo: FileWorkMemo,
  /** Everything else the render depends on (what may run, attribution), as text. */
  salt: string,
): Promise<(RenderOutcome & { byFile: ByFileRender }) | undefined> {
  const parts = splitTree(tree);
  if (!parts) return undefined;
  const { kptfiles, files } = parts;
  const shape = packageShape(kptfiles);
  if (!shape) return undefined;
  const steps = splitSteps(shape, tree, env.registry);
  if (!steps) return undefined;

  const base = fileWorkBase(kptfiles, salt);
  const entries: FileEntry[] = files.map((path) => {
    // The key as text (a digest per file cost more than the lookups it keys).
    const key = `${base}\0${path}\0${shas.get(path)}`;
    return { path, key, work: memo.get(key) };
  });
  const owner = ownerOf(shape.order.map((p) => p.path));
  const last = parts.commented ? lastItems(entries, steps, owner, memo) : undefined;
  if (last) for (const e of entries) if (last.forced.has(e.path)) e.work = undefined;
  const partial: FileTree = new Map(kptfiles);
  for (const e of entries) if (!e.work) partial.set(e.path, fileOf(tree, e.path));

  const recorder = new ShareRecorder(steps);
  const { maxResources, ...rest } = env;
  // The files kept count against the limit too: past it, nothing runs (the whole render reports it).
  let kept = 0;
  for (const e of entries) kept += e.work?.docs ?? 0;
  const limit = maxResources === undefined ? {} : { maxResources: maxResources - kept };
  const outcome = await render(partial, "", {
    ...rest,
    ...limit,
    runners: { ...env.runners, builtin: recorder },
  });
  if (!outcome.ok || !outcome.root || recorder.ran !== steps.length) return undefined;
  if (outcome.records.length !== steps.length) return undefined;
  for (const path of outcome.tree.keys()) if (!partial.has(path)) return undefined;
  const fresh = recorder.byFile(outcome.packageDirs);
  if (!fresh) return undefined;
  for (const path of fresh.keys()) if (!partial.has(path)) return undefined;

  const sharesOf = (path: string, n: number) => fileShares(fresh.get(path) ?? [], owner(path), n, steps);
  const kptfileShares = new Map<string, unknown[][]>();
  for (const path of kptfiles.keys()) {
    const shares = sharesOf(path, 1);
    if (!shares) return undefined;
    kptfileShares.set(path, shares);
  }
  const works = completeWorks(entries, outcome, tree, sharesOf);
  if (!works) return undefined;
  const { done } = works;
  const docsOf = new Map(done.map(({ path, work }) => [path, work.docs]));
  const holders = last && lastHolders(last, (p) => docsOf.get(p) ?? 0);
  if (last && !holders) return undefined;
  for (const { path, key, work } of works.made) memo.set(holders?.has(path) ? `${key}${AS_LAST}` : key, work);

  let resources = 0;
  for (const { work } of done) resources += work.docs;
  if (env.maxResources !== undefined && resources > env.maxResources) return undefined;

  const filesOf = new Map<string, FileWork[]>();
  for (const { path, work } of done) {
    const pkg = owner(path);
    const list = filesOf.get(pkg);
    if (list) list.push(work);
    else filesOf.set(pkg, [work]);
  }
  const records = combineRecords(steps, shape.order, outcome.records, kptfileShares, filesOf);
  if (!records) return undefined;

  const out: FileTree = new Map(tree);
  for (const [path, bytes] of kptfiles) out.set(path, outcome.tree.get(path) ?? bytes);
  for (const { path, work } of done) {
    if (work.out === null) out.delete(path);
    else if (work.out !== "same") out.set(path, work.out);
  }
  memo.reused += files.length - works.made.length;
  memo.rendered += works.made.length;
  return {
    ...outcome,
    tree: out,
    items: [],
    records,
    resourceFiles: [
      ...kptfiles.keys(),
      ...done.filter(({ work }) => work.out !== null).map(({ path }) => path),
    ],
    resourceCount: resources,
    byFile: { steps, pipelines: pipelinesText(shape.order), base, works: done },
  };
}

/** What a render by file leaves for the render of its output (settleOutput). */
export interface ByFileRender {
  steps: readonly SplitStep[];
  /** The packages' pipelines, as text: the output's must be the same for its steps to be these. */
  pipelines: string;
  /** The input's Kptfiles and settings, as the memo's keys begin (fileWorkBase). */
  base: string;
  /** Each resource file of the input and its render. */
  works: readonly { path: string; work: FileWork }[];
}

/**
 * Puts into the memo the render of `out`, the output of the render by file `last`, as the steps'
 * declarations tell it (Rerun, SettledShares): every resource file rendering to itself, its resources
 * reporting their declared second shares. True where every resource file of `out` was so told (the
 * render of `out` then renders its Kptfiles only); false, the memo untouched, where one was not: a step
 * without a declaration, an item a step may change, a later step writing what an earlier one looks at,
 * a pipeline the render changed.
 */
export function settleOutput(
  out: FileTree,
  /** Each file's git blob SHA, as the render of `out` keys it. */
  shas: ReadonlyMap<string, string>,
  last: ByFileRender,
  memo: FileWorkMemo,
  salt: string,
  settled: SettledShares,
): boolean {
  const parts = splitTree(out);
  if (!parts) return false;
  const shape = packageShape(parts.kptfiles);
  if (!shape || pipelinesText(shape.order) !== last.pipelines) return false;
  const base = fileWorkBase(parts.kptfiles, salt);
  const reruns = last.steps.map((s) => s.split.rerun);
  const kept: [string, FileWork][] = [];
  let files = 0;
  for (const { path, work } of last.works) {
    if (work.out === null) continue;
    files++;
    const sha = shas.get(path);
    if (sha === undefined || !out.has(path)) return false;
    // A file the render left as it was, under the same Kptfiles, is its own output: the memo's render of
    // it is the render of the output's file (a write-back of one file settles that file alone).
    if (work.out === "same" && base === last.base && memo.get(`${base}\0${path}\0${sha}`)) continue;
    const shares: unknown[][] = work.shares.map(() => []);
    for (let d = 0; d < work.docs; d++) {
      const mine = work.shares.map((list) => (list.length === 0 ? NOT_RUN : list[d]));
      const again = settled.again(reruns, mine);
      if (!again) return false;
      again.forEach((share, s) => {
        if (share !== NOT_RUN) shares[s]?.push(share);
      });
    }
    const counted = shares.reduce((sum, list) => sum + list.length, 0);
    kept.push([
      `${base}\0${path}\0${sha}`,
      { out: "same", docs: work.docs, shares, size: counted * SHARE_BYTES + 100 },
    ]);
  }
  if (files !== parts.files.length) return false;
  for (const [key, work] of kept) memo.set(key, work);
  return true;
}

/** Every Kptfile (the pipelines, their configs, which package owns which file) is in every file's key. */
function fileWorkBase(kptfiles: FileTree, salt: string): string {
  const baseHash = createHash("sha256").update(salt);
  for (const [path, bytes] of [...kptfiles].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    baseHash.update(`\0${path}\0`).update(bytes);
  }
  return baseHash.digest("hex");
}

function pipelinesText(order: readonly KptPackage[]): string {
  return JSON.stringify(order.map((p) => [p.path, p.kptfile.pipeline ?? null]));
}

/** A resource file of the tree, the key of its render in the memo, and the render when the memo holds it. */
interface FileEntry {
  path: string;
  key: string;
  work: FileWork | undefined;
}

/**
 * The tree's Kptfiles and its resource files (sorted), and whether one of those ends in a comment line;
 * undefined where the whole tree must be rendered: a `.krmignore`, no root Kptfile.
 */
function splitTree(tree: FileTree): { kptfiles: FileTree; files: string[]; commented: boolean } | undefined {
  const kptfiles: FileTree = new Map();
  const files: string[] = [];
  let commented = false;
  for (const [path, bytes] of tree) {
    if (path === ".krmignore" || path.endsWith("/.krmignore")) return undefined;
    if (isKptfilePath(path)) kptfiles.set(path, bytes);
    else if (isYamlFileName(path)) {
      if (!commented && endsWithCommentLine(bytes)) commented = true;
      files.push(path);
    }
  }
  if (!kptfiles.has(KPTFILE_NAME)) return undefined;
  files.sort();
  return { kptfiles, files, commented };
}

/** The memo's key of a file's render as the last item its package's pipeline is given (LastItems). */
const AS_LAST = "\0last";

/**
 * What a step writes of a document ending in comment lines depends on whether it is the last item of
 * the list the step is given (kyaml moves such a comment into the document's innermost block unless
 * the ResourceList ends there: src/render/sync.ts `followed`), and a package's pipeline is given its
 * subpackages' items, then its Kptfile and its own files by path. So where a resource file ends in a
 * comment line, the files that may hold the last item of a package running steps — its own files from
 * the last back to one the memo knows to hold a document — are rendered on every push (`forced`), as
 * they stand in the whole list, and the one that holds the last item is kept under a key of its own;
 * every other file holds no list's last item, in the whole render as in the files' render.
 */
interface LastItems {
  /** Files rendered on every push, never taken from the memo. */
  forced: Set<string>;
  /** Each package running steps, and its own files in order. */
  owned: Map<string, string[]>;
}

function lastItems(
  entries: readonly FileEntry[],
  steps: readonly SplitStep[],
  owner: (path: string) => string,
  memo: FileWorkMemo,
): LastItems {
  const running = new Set(steps.map((s) => s.pkg));
  const owned = new Map<string, string[]>([...running].map((p) => [p, []]));
  for (const e of entries) owned.get(owner(e.path))?.push(e.path);
  const forced = new Set<string>();
  const keyOf = new Map(entries.map((e) => [e.path, e.key]));
  for (const paths of owned.values()) {
    for (let i = paths.length - 1; i >= 0; i--) {
      const path = paths[i] as string; // i < paths.length
      forced.add(path);
      const key = keyOf.get(path) ?? "";
      const docs = (memo.get(`${key}${AS_LAST}`) ?? memo.get(key))?.docs ?? 0;
      if (docs > 0) break;
    }
  }
  return { forced, owned };
}

/**
 * The file each package running steps has its last item in (its last own file holding a document), or
 * undefined where one such file was not rendered as it stands (not forced): the whole tree is rendered.
 */
function lastHolders(last: LastItems, docsOf: (path: string) => number): Set<string> | undefined {
  const holders = new Set<string>();
  for (const paths of last.owned.values()) {
    const holder = paths.findLast((p) => docsOf(p) > 0);
    if (holder === undefined) continue;
    if (!last.forced.has(holder)) return undefined;
    holders.add(holder);
  }
  return holders;
}

/**
 * A file's shares of each step's results, from what the recorder saw of it (`got`, by step): a file of
 * package `pkg` with `n` documents has `n` shares of each step that runs over that package, none of
 * any other. Undefined where the count is off.
 */
function fileShares(
  got: readonly unknown[][],
  pkg: string,
  n: number,
  steps: readonly SplitStep[],
): unknown[][] | undefined {
  const out: unknown[][] = [];
  for (const [s, step] of steps.entries()) {
    const list = got[s] ?? [];
    if (list.length !== (within(pkg, step.pkg) ? n : 0)) return undefined;
    out.push(list);
  }
  return out;
}

/**
 * Every resource file with its render: the memo's, or the one just made (`made`, for the memo). Undefined
 * where a file's shares are off.
 */
function completeWorks(
  entries: readonly FileEntry[],
  outcome: RenderOutcome,
  tree: FileTree,
  sharesOf: (path: string, n: number) => unknown[][] | undefined,
):
  | { done: { path: string; work: FileWork }[]; made: { path: string; key: string; work: FileWork }[] }
  | undefined {
  const docs = new Map<string, number>();
  const visit = (pkg: KptPackage): void => {
    for (const f of pkg.resourceFiles) docs.set(f.path, f.docs.length);
    for (const sub of pkg.subpackages) visit(sub);
  };
  if (outcome.root) visit(outcome.root);
  const done: { path: string; work: FileWork }[] = [];
  const made: { path: string; key: string; work: FileWork }[] = [];
  for (const { path, key, work: kept } of entries) {
    let work = kept;
    if (!work) {
      const n = docs.get(path) ?? 0;
      const shares = sharesOf(path, n);
      if (!shares) return undefined;
      const after = outcome.tree.get(path);
      const out = after === undefined ? null : after.equals(fileOf(tree, path)) ? "same" : after;
      const counted = shares.reduce((sum, list) => sum + list.length, 0);
      const size = (out instanceof Buffer ? out.length : 0) + counted * SHARE_BYTES + 100;
      work = { out, docs: n, shares, size };
      made.push({ path, key, work });
    }
    done.push({ path, work });
  }
  return { done, made };
}

/**
 * Each step's record with its results combined from every resource's share in kpt's item order (depth
 * first, each package's Kptfile and then its files by path). Undefined where the whole list decides.
 */
function combineRecords(
  steps: readonly SplitStep[],
  order: readonly KptPackage[],
  rendered: RenderOutcome["records"],
  kptfileShares: ReadonlyMap<string, unknown[][]>,
  filesOf: ReadonlyMap<string, FileWork[]>,
): RenderOutcome["records"] | undefined {
  const records: RenderOutcome["records"] = [];
  for (const [s, step] of steps.entries()) {
    const shares: unknown[] = [];
    for (const pkg of order) {
      if (!within(pkg.path, step.pkg)) continue;
      const own = kptfileShares.get(pkg.kptfilePath)?.[s];
      if (!own) return undefined;
      shares.push(own[0]);
      for (const w of filesOf.get(pkg.path) ?? []) for (const share of w.shares[s] ?? []) shares.push(share);
    }
    const results = step.split.combine(shares);
    const record = rendered[s];
    if (!results || !record) return undefined;
    // The results may be the kept shares themselves (set-image's are): KptRenderer.result, the one
    // reader of these records, only reads them and copies what it keeps into findings. A copy here
    // (structuredClone) was a fifth of an incremental render's CPU at 10,000 resources.
    records.push({ ...record, results });
  }
  return records;
}

function packageShape(kptfiles: FileTree): { order: KptPackage[] } | undefined {
  let root: KptPackage;
  try {
    root = loadPackage(kptfiles);
  } catch {
    // The whole render reports what is wrong.
    return undefined;
  }
  const order: KptPackage[] = [];
  const visit = (pkg: KptPackage): void => {
    for (const sub of pkg.subpackages) visit(sub);
    order.push(pkg);
  };
  visit(root);
  return { order };
}

/** True when package `pkg` is `top` or below it. */
function within(pkg: string, top: string): boolean {
  return top === "" || pkg === top || pkg.startsWith(`${top}/`);
}

/** Maps a file path to the deepest package directory that holds it. */
function ownerOf(dirs: readonly string[]): (path: string) => string {
  const set = new Set(dirs);
  return (path) => {
    let d = path;
    do {
      const slash = d.lastIndexOf("/");
      d = slash < 0 ? "" : d.slice(0, slash);
    } while (d !== "" && !set.has(d));
    return d;
  };
}

/** The pipelines' steps in the order they run, or undefined where one does not run by item. */
function splitSteps(
  shape: { order: readonly KptPackage[] },
  tree: FileTree,
  registry: FunctionRegistry,
): SplitStep[] | undefined {
  const steps: SplitStep[] = [];
  try {
    for (const pkg of shape.order) {
      const pipeline = pkg.kptfile.pipeline;
      if ((pipeline?.validators?.length ?? 0) > 0) return undefined;
      for (const fn of pipeline?.mutators ?? []) {
        if (!fn.image || fn.exec !== undefined || fn.configPath !== undefined) return undefined;
        if ((fn.selectors?.length ?? 0) > 0 || (fn.exclude?.length ?? 0) > 0) return undefined;
        const image = qualifiedImage(fn.image);
        const found = registry.find(image);
        if (!found) return undefined;
        const release = found.release === "unversioned" ? undefined : found.release;
        const split = found.fn.split?.(functionConfigOf(fn, tree, pkg.path), release);
        if (!split) return undefined;
        // Asked as the builtin runner asks it: before the run, of a config no run has seen.
        const untouched = found.fn.untouched?.(functionConfigOf(fn, tree, pkg.path), release) ?? {};
        steps.push({ image, split, untouched, pkg: pkg.path });
      }
    }
  } catch {
    return undefined;
  }
  return steps.length > 0 ? steps : undefined;
}

/**
 * Runs the pipelines' builtins by item in a render, keeping each item's share with the file and index
 * it was read from; notes an item a step moves to another file (or package).
 */
class ShareRecorder implements FunctionRunner {
  readonly kind = "builtin";
  /** Steps run so far. */
  ran = 0;
  private moved = false;
  private readonly shares: (readonly (string | undefined)[] | unknown)[][] = [];
  /** Each item's file annotations when first seen (a step that changes them is noticed: `moved`). */
  private readonly places = new Map<Document, readonly (string | undefined)[]>();

  constructor(private readonly steps: readonly SplitStep[]) {}

  async run(fn: { image?: string }, input: { items: Document[] }, options: RunOptions): Promise<RunOutput> {
    const step = this.steps[this.ran];
    if (!step || fn.image !== step.image) throw new Error("the pipeline is not the one split");
    this.ran++;
    const check = step.untouched.fileAnnotations !== true;
    let moved = false;
    const kept: unknown[] = [];
    for (const doc of input.items) {
      // Stopped between items, as the builtins' own runs are.
      options.signal?.throwIfAborted();
      let place = this.places.get(doc);
      if (!place) {
        place = getAnnotationsOf(doc, PLACE_KEYS);
        this.places.set(doc, place);
      }
      kept.push(place, step.split.item(doc));
      if (check && !samePlace(getAnnotationsOf(doc, PLACE_KEYS), place)) moved = true;
    }
    this.shares.push(kept);
    if (moved) this.moved = true;
    // Seen to leave every file annotation as it was (as apply-setters shows it when it sets none there).
    const untouched = check && !moved ? { ...step.untouched, fileAnnotations: true } : step.untouched;
    return { items: input.items, results: [], untouched };
  }

  /**
   * Each file's shares (tree-relative path): for each step, its documents' shares in index order.
   * Undefined where an item changed file, or came in out of order.
   */
  byFile(packageDirs: ReadonlyMap<string, string>): Map<string, unknown[][]> | undefined {
    if (this.moved) return undefined;
    const out = new Map<string, unknown[][]>();
    for (const [s, kept] of this.shares.entries()) {
      for (let i = 0; i < kept.length; i += 2) {
        const place = kept[i] as (string | undefined)[];
        const dir = packageDirs.get(place[4] ?? "");
        if (dir === undefined || place[0] === undefined) return undefined;
        const path = dir === "" ? place[0] : `${dir}/${place[0]}`;
        let list = out.get(path);
        if (!list) {
          list = Array.from({ length: this.steps.length }, () => []);
          out.set(path, list);
        }
        // list holds one entry per step, s < steps.length
        const at = list[s]!;
        if (String(at.length) !== place[2]) return undefined;
        at.push(kept[i + 1]);
      }
    }
    return out;
  }
}

function samePlace(a: readonly (string | undefined)[], b: readonly (string | undefined)[]): boolean {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Whether the last line of a file that is not blank is a comment line (`#` after any spaces). */
function endsWithCommentLine(bytes: Buffer): boolean {
  let end = bytes.length;
  while (end > 0) {
    let start = bytes.lastIndexOf(10, end - 1);
    start = start < 0 ? 0 : start + 1;
    let i = start;
    while (i < end && (bytes[i] === 32 || bytes[i] === 9 || bytes[i] === 13)) i++;
    if (i < end) return bytes[i] === 35;
    end = start === 0 ? 0 : start - 1;
  }
  return false;
}
