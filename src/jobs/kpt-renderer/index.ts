import { createHash } from "node:crypto";
import { LRUCache } from "lru-cache";
import type { Document } from "yaml";
import type { Guardrail, Runtime } from "../../config/schema.js";
import { defaultRegistry, type FunctionRegistry } from "../../fn/registry.js";
import { DEFAULT_RUN_OPTIONS, type RunOptions } from "../../fn/runtime/types.js";
import { isKptfilePath, kptfileDocument } from "../../kpt/kptfile.js";
import type { FileTree } from "../../kpt/tree.js";
import { blobSha, type ParseCache } from "../../kpt/yaml/parse-cache.js";
import { type RenderOutcome, render, runtimesNeeded } from "../../render/render.js";
import { treesEqual } from "../packages.js";
import type { Renderer, RenderFinding, RenderOptions, RenderResult } from "../renderer.js";
import { HandoverParseCache } from "./handover.js";
import { type ByFileRender, type FileWork, FileWorkMemo, renderByFile, settleOutput } from "./incremental.js";
import { PlaceMemo, placeResults, type ResultPlace, type ResultToPlace } from "./locate.js";
import type { RenderJournal } from "./render-journal.js";
import { SettledShares } from "./settled.js";

/** Where guardrail config files are placed in the package handed to the validators. */
const GUARDRAIL_DIR = ".porchlight-guardrails";

/**
 * How many already-rendered package trees a KptRenderer remembers, and what their findings may weigh
 * (counted about as they weigh: a large package's are thousands).
 */
const RENDERED_ENTRIES = 1024;
const RENDERED_BYTES = 16 * 1024 * 1024;

/** What a KptRenderer did since it was made: the work its caches saved shows here, not in time. */
export interface RendererStats {
  /** Renders asked for. */
  renders: number;
  /** Renders answered without running anything: the tree was rendered before and nothing changed. */
  unchanged: number;
  /** Functions run (pipeline steps and guardrails). */
  functionsRun: number;
  /** YAML resource files `yaml`'s parser parsed; a file the cache held is not counted. */
  filesParsed: number;
  /** YAML resource files the fast reader read (each time: never kept, reading costs as little as a copy). */
  filesRead: number;
  /**
   * Resource files whose render (the file it became, its resources' shares of the results) was kept from
   * an earlier render and used, the file not read (FileWorkMemo).
   */
  filesReused: number;
  /** Resource files rendered on their own, their render kept, by renders that reused the others (FileWorkMemo). */
  filesRendered: number;
  /** Findings naming a file, placed (file and line) by reading the files they may be in. */
  placesFound: number;
  /** Findings placed from an earlier render's placement: the files they may be in did not change. */
  placesRemembered: number;
  /**
   * Resource files whose documents the render took from the last render's finding placer instead of
   * reading them (the bot's commit of that render's output: HandoverParseCache).
   */
  filesHandedOver: number;
  /** Bytes of kept work read back from the journal at the first render (a restarted app's). */
  journalBytesRead: number;
}

/**
 * The render engine (src/render) behind the jobs' Renderer interface. It lives as long as the process
 * and remembers, bounded: the parsed documents of the files `yaml`'s parser read (by git blob SHA), so
 * a push that changes one file of a large package parses that file only (files the fast reader reads
 * are read again: see ParseCache); where each finding that names a file was placed, under the blob SHAs
 * of the files it may be in (PlaceMemo), so such a push reads only the changed file to place findings;
 * and which package trees rendered to themselves, so rendering such a tree again (a push that changed
 * other files, the proposal check, a sweep) runs no function at all. Forgetting any of them (a restart)
 * only costs time: the answer is the same.
 */
export class KptRenderer implements Renderer {
  private readonly parses: ParseCache;
  private readonly places = new PlaceMemo();
  private readonly files: FileWorkMemo | null;
  /** Key of a tree (with the options) that rendered to itself → what that render reported. */
  private readonly rendered = new LRUCache<string, Pick<RenderResult, "findings" | "resources" | "heldBack">>(
    {
      max: RENDERED_ENTRIES,
      // A package's findings are most of what is kept: thousands for a large package.
      maxSize: RENDERED_BYTES,
      sizeCalculation: (r) => 100 + r.findings.reduce((n, f) => n + 100 + f.message.length, 0),
    },
  );
  private readonly counts = { renders: 0, unchanged: 0, functionsRun: 0 };
  /** The last render, where it was by file and changed files: its output, and what settled() needs of it. */
  private last: { out: FileTree; settings: string; byFile: ByFileRender } | undefined;
  private readonly settledShares = new SettledShares();

  constructor(
    private readonly registry: FunctionRegistry = defaultRegistry(),
    private readonly run: RunOptions = DEFAULT_RUN_OPTIONS,
    /** kpt's attribution on Config Connector resources (KPT_DISABLE_ATTRIBUTION turns it off, as in kpt). */
    private readonly attribution = true,
    parseCache: ParseCache = new HandoverParseCache(),
    /** None: every render renders the whole tree (what the by-file renders are checked against). */
    fileWork: FileWorkMemo | null = new FileWorkMemo(),
    /** Why a container function's image may not be pulled (the operator's egress policy), or undefined. */
    private readonly imageCheck?: (image: string) => Promise<string | undefined>,
    /** Where the kept work is journaled, for a restarted app to render as before; none: kept in memory only. */
    private readonly journal?: RenderJournal<FileWork, ResultPlace>,
  ) {
    this.parses = parseCache;
    this.files = fileWork;
    if (this.journal) {
      this.places.journaled = true;
      if (this.files) this.files.journaled = true;
    }
  }

  get stats(): RendererStats {
    return {
      ...this.counts,
      filesParsed: this.parses.parsed,
      filesRead: this.parses.read,
      filesHandedOver: this.parses instanceof HandoverParseCache ? this.parses.handedOver : 0,
      filesReused: this.files?.reused ?? 0,
      filesRendered: this.files?.rendered ?? 0,
      placesFound: this.places.found,
      placesRemembered: this.places.remembered,
      journalBytesRead: this.journal?.loadedBytes ?? 0,
    };
  }

  async render(tree: FileTree, options: RenderOptions): Promise<RenderResult> {
    this.readJournal();
    const handover = this.parses instanceof HandoverParseCache ? this.parses : undefined;
    handover?.beginRender();
    try {
      return await this.renderTree(tree, options);
    } finally {
      handover?.endRender();
      this.writeJournal();
    }
  }

  private async renderTree(tree: FileTree, options: RenderOptions): Promise<RenderResult> {
    this.counts.renders++;
    const shas = new Map<string, string>();
    for (const [path, bytes] of tree) shas.set(path, options.blobIds?.get(path) ?? blobSha(bytes));
    const key = this.renderKey(shas, options);
    const known = this.rendered.get(key);
    if (known) {
      this.counts.unchanged++;
      return {
        ok: true,
        tree,
        findings: known.findings.map((f) => ({ ...f })),
        resources: known.resources ?? 0,
        ...(known.heldBack ? { heldBack: [...known.heldBack] } : {}),
      };
    }
    const env = { ...this.env(options), attribution: this.attribution };
    const byFile = this.files && (await renderByFile(tree, shas, env, this.files, this.settings(options)));
    const outcome = byFile ?? (await render(tree, "", env));
    this.counts.functionsRun += outcome.records.length;
    // Where every step declares what a run over its own output does, the render of the bot's commit of
    // this output is told (settled()), reading none of its files: nothing to hand over to it.
    const told = byFile?.byFile.steps.every((s) => s.split.rerun !== undefined) ?? false;
    const result = this.result(tree, outcome, shas, !told);
    this.last =
      byFile && result.ok && !treesEqual(result.tree, tree)
        ? { out: result.tree, settings: this.settings(options), byFile: byFile.byFile }
        : undefined;
    if (result.ok && treesEqual(result.tree, tree)) this.remember(key, result);
    return result;
  }

  async validate(
    tree: FileTree,
    guardrails: readonly Guardrail[],
    configs: ReadonlyMap<string, string>,
    options: RenderOptions,
  ): Promise<RenderResult> {
    const input = validationTree(tree, guardrails, configs);
    const outcome = await render(input, "", { ...this.env(options), writeFiles: false });
    this.counts.functionsRun += outcome.records.length;
    const result = { ...this.result(tree, outcome), tree };
    this.writeJournal();
    return result;
  }

  /**
   * Reads back what earlier renderers kept (a restart's journal) now, not at the first render: a thread
   * that starts idle pays it before a push waits on it. Later calls, and the first render after one,
   * read nothing.
   */
  restore(): void {
    this.readJournal();
  }

  /** At the first render: what earlier renderers kept (a restart's), read back from the journal. */
  private readJournal(): void {
    if (!this.journal) return;
    const read = this.journal.load();
    if (read.files.length > 0) this.files?.restore(read.files);
    if (read.places.length > 0) this.places.restore(read.places);
    if (this.journal.wantsCompaction) this.compactJournal();
  }

  /** What the last render newly kept, appended to the journal. */
  private writeJournal(): void {
    if (!this.journal) return;
    this.journal.append({ files: this.files?.takeFresh() ?? [], places: this.places.takeFresh() });
    if (this.journal.wantsCompaction) this.compactJournal();
  }

  private compactJournal(): void {
    this.files?.takeFresh();
    this.places.takeFresh();
    this.journal?.compact({ files: this.files?.kept() ?? [], places: this.places.kept() });
  }

  runtimesNeeded(tree: FileTree): Runtime[] {
    return runtimesNeeded(tree, this.registry);
  }

  /**
   * Renders the tree the bot committed, as the next push to its draft will start from it: each of its
   * files then has its render kept (FileWorkMemo) and, when it renders to itself (kpt's functions are
   * idempotent), the whole tree is known rendered. A push that then edits one file renders that file.
   */
  async committed(tree: FileTree, options: RenderOptions): Promise<void> {
    if (this.files) await this.render(tree, options);
  }

  /**
   * The render of the bot's commit of the last render's output, told by the functions' declarations
   * (Rerun: each step of the pipeline says what a run over its own output does) instead of run: each
   * resource file kept as rendering to itself, reporting its declared second shares, then rendered as
   * any push is (the Kptfiles run, the results combined and placed), so the next push starts from it as
   * from committed(). Undefined, nothing kept, where that is not provably the render's answer: the last
   * render was not by file or its output is not `tree`, a step declares nothing, a later step writes
   * what an earlier one looks at (settled.ts); the caller renders the commit then (committed()).
   * A renderer that keeps nothing (no FileWorkMemo) answers by rendering the tree, every function run:
   * the reference the told answers are checked against (test/jobs/render-draft-differential.test.ts).
   */
  async settled(tree: FileTree, options: RenderOptions): Promise<RenderResult | undefined> {
    if (!this.files) {
      const again = await this.render(tree, options);
      return again.ok && treesEqual(again.tree, tree) ? again : undefined;
    }
    const last = this.last;
    if (!last || last.settings !== this.settings(options) || !treesEqual(last.out, tree)) return undefined;
    const shas = new Map<string, string>();
    for (const [path, bytes] of tree) shas.set(path, options.blobIds?.get(path) ?? blobSha(bytes));
    if (!settleOutput(tree, shas, last.byFile, this.files, last.settings, this.settledShares))
      return undefined;
    const result = await this.render(tree, { ...options, blobIds: shas });
    return result.ok && treesEqual(result.tree, tree) ? result : undefined;
  }

  /** What a render depends on besides the files, maxResources apart. */
  private settings(options: RenderOptions): string {
    return JSON.stringify({
      runtimes: [...options.runtimes].sort(),
      holdBack: [...(options.holdBack ?? [])].sort(),
      attribution: this.attribution,
    });
  }

  /** The tree's files (paths and blob SHAs: the pipelines are in its Kptfiles) and what may run. */
  private renderKey(shas: ReadonlyMap<string, string>, options: RenderOptions): string {
    const hash = createHash("sha256");
    hash.update(`${this.settings(options)}\0${options.maxResources ?? ""}`);
    for (const path of [...shas.keys()].sort()) hash.update(`\n${path}\0${shas.get(path)}`);
    return hash.digest("hex");
  }

  private remember(key: string, result: RenderResult): void {
    this.rendered.set(key, {
      findings: result.findings.map((f) => ({ ...f })),
      resources: result.resources ?? 0,
      ...(result.heldBack ? { heldBack: [...result.heldBack] } : {}),
    });
  }

  private env(options: RenderOptions) {
    return {
      parseCache: this.parses,
      registry: this.registry,
      allowExec: options.runtimes.includes("exec"),
      allowContainer: options.runtimes.includes("container"),
      // the bot's checks are read by people who allow runtimes in settings, not with flags
      allowedBy: "settings" as const,
      ...(this.imageCheck ? { imageCheck: this.imageCheck } : {}),
      run: this.run,
      ...(options.maxResources !== undefined ? { maxResources: options.maxResources } : {}),
      holdBack: (options.holdBack ?? []).filter((r): r is "exec" | "container" => r !== "builtin"),
    };
  }

  /**
   * `shas`: the input's blob ids (a file the render left as the same bytes is not hashed again).
   * `handOver`: whether the placer's documents of the files the render changed go to the next render
   * (the bot's commit of this output read by committed(), not told by settled()).
   */
  private result(
    input: FileTree,
    outcome: RenderOutcome,
    shas?: ReadonlyMap<string, string>,
    handOver = true,
  ): RenderResult {
    const placed = outcome.ok ? outcome.tree : input;
    const known = (path: string) =>
      shas && placed.get(path) === input.get(path) ? shas.get(path) : undefined;
    // What the placer reads of the files the render changed is what the render of the bot's commit of
    // them reads next (the files it left as they were are kept by file: FileWorkMemo).
    const handover =
      handOver && outcome.ok && this.parses instanceof HandoverParseCache ? this.parses : undefined;
    const offer =
      handover &&
      ((path: string, text: string, docs: Document[]) => {
        if (placed.get(path) !== input.get(path)) handover.offer(text, docs);
      });
    const toPlace: ResultToPlace[] = [];
    for (const rec of outcome.records) {
      // Result files are relative to the package whose pipeline ran (or to one of its subpackages).
      const pkg = rec.packageDir === undefined ? undefined : outcome.packageDirs.get(rec.packageDir);
      for (const r of rec.results)
        toPlace.push(pkg === undefined ? { result: r } : { result: r, packageDir: pkg });
    }
    const places = placeResults(placed, toPlace, this.places, known, offer);
    const findings: RenderFinding[] = [];
    let at = 0;
    for (const rec of outcome.records) {
      const fn = rec.image ?? rec.exec ?? "function";
      for (const r of rec.results) {
        findings.push({ function: fn, severity: r.severity ?? "info", message: r.message, ...places[at++] });
      }
      if (rec.exitCode !== 0 && rec.results.length === 0) {
        findings.push({
          function: fn,
          severity: "error",
          message: rec.stderr?.trim() || `exited with code ${rec.exitCode}`,
        });
      }
    }
    const counted = {
      resources: outcome.resourceCount ?? 0,
      ...(outcome.tooManyResources ? { tooManyResources: outcome.tooManyResources } : {}),
      ...(outcome.heldBack?.length ? { heldBack: outcome.heldBack } : {}),
    };
    if (outcome.ok) return { ok: true, tree: outcome.tree, findings, ...counted };
    return {
      ok: false,
      tree: input,
      findings,
      error: outcome.error?.message ?? "the pipeline failed",
      ...counted,
    };
  }
}

/**
 * The package as the guardrails see it: its own pipelines removed (the committed files are what is
 * checked) and the root Kptfile running the guardrails as validators.
 */
function validationTree(
  tree: FileTree,
  guardrails: readonly Guardrail[],
  configs: ReadonlyMap<string, string>,
): FileTree {
  const out: FileTree = new Map(tree);
  for (const [path, bytes] of tree) {
    if (isKptfilePath(path)) {
      const doc = kptfileDocument(bytes.toString("utf8"), path);
      doc.delete("pipeline");
      if (path === "Kptfile") setValidators(doc, guardrails);
      out.set(path, Buffer.from(doc.toString()));
    }
  }
  let placed = false;
  guardrails.forEach((g, i) => {
    if (!g.configPath) return;
    const text = configs.get(g.configPath);
    if (text === undefined) return;
    out.set(`${GUARDRAIL_DIR}/${i}.yaml`, Buffer.from(text));
    placed = true;
  });
  // A guardrail's config is read from the repository, not the package: it is a validator's
  // functionConfig, never one of the resources the validators check (kubeconform would check a
  // StarlarkRun, and report it at a path the repository does not have). `.krmignore` keeps it out of
  // the items; a configPath is read from the tree all the same.
  if (placed) {
    const own = tree.get(".krmignore")?.toString("utf8") ?? "";
    const sep = own === "" || own.endsWith("\n") ? "" : "\n";
    out.set(".krmignore", Buffer.from(`${own}${sep}/${GUARDRAIL_DIR}/\n`));
  }
  return out;
}

function setValidators(doc: Document, guardrails: readonly Guardrail[]): void {
  doc.set(
    "pipeline",
    doc.createNode({
      validators: guardrails.map((g, i) => ({
        image: g.image,
        ...(g.configMap ? { configMap: g.configMap } : {}),
        ...(g.configPath ? { configPath: `${GUARDRAIL_DIR}/${i}.yaml` } : {}),
      })),
    }),
  );
}
