import { posix } from "node:path";
import type { Document } from "yaml";
import { type FunctionRegistry, qualifiedImage } from "../fn/function-registry.js";
import { BuiltinRunner } from "../fn/runtime/builtin.js";
import { ContainerRunner, detectEngine } from "../fn/runtime/container.js";
import { FunctionExitError } from "../fn/runtime/errors.js";
import { ExecRunner } from "../fn/runtime/exec.js";
import type { FunctionRunner, FunctionSpec, RunOptions, RuntimeKind } from "../fn/runtime/types.js";
import type { FunctionResult } from "../fn/types.js";
import { ANNOTATION } from "../kpt/annotations.js";
import { attribute } from "../kpt/attribution.js";
import { KptError, KptfileInvalidError, kptfileKptText, YamlError } from "../kpt/errors.js";
import { isKptfilePath, type KptFunction, parseKptfile } from "../kpt/kptfile.js";
import { type KptPackage, loadPackage, type ResourceFile } from "../kpt/package.js";
import { getAnnotation } from "../kpt/resource.js";
import type { FileTree } from "../kpt/tree.js";
import type { ParseCache } from "../kpt/yaml/parse-cache.js";
import { functionConfigOf } from "./fnconfig.js";
import { newItemNotes, packageItems } from "./items.js";
import type { FunctionRecord } from "./results.js";
import { checkKrm, runStep, type StepContext, StepFailed } from "./step.js";
import { itemsToTree, resourceFilePaths } from "./write.js";

/** What the CLI (or a check run) shows while a render goes, in kpt's order. */
export type RenderEvent =
  | { type: "package"; path: string }
  | { type: "running"; name: string; selected?: number }
  | { type: "pass"; name: string; ms: number; results: FunctionResult[]; stderr?: string }
  | { type: "fail"; name: string; ms: number; results: FunctionResult[]; stderr?: string; exitCode?: number };

export interface RenderEnv {
  registry: FunctionRegistry;
  allowExec?: boolean;
  allowContainer?: boolean;
  /** Who can allow exec and container functions, for the advice a refusal gives (RuntimeHints). */
  allowedBy?: "flags" | "settings";
  /** Absolute directory of the tree root on disk (for kpt's package-path annotation). */
  rootDir?: string;
  /** Preferred container engine ("docker" or "podman", kpt's KPT_FN_RUNTIME); the other is tried too. */
  containerEngine?: string;
  /** Let container functions use the network (kpt's --allow-network); they get none otherwise. */
  allowNetwork?: boolean;
  /** Why a container function's image may not be pulled (the app's egress policy), or undefined. */
  imageCheck?: (image: string) => Promise<string | undefined>;
  /** Where relative `exec:` paths are resolved from: kpt uses its working directory (default: the package). */
  execDir?: string;
  run: RunOptions;
  /** Replaces the default runner of a kind (tests). */
  runners?: Partial<Record<RuntimeKind, FunctionRunner>>;
  onEvent?: (event: RenderEvent) => void;
  /** False: skip building the files (the caller only wants the items, e.g. for `--output stdout`). */
  writeFiles?: boolean;
  /**
   * The most resources (YAML documents; the Kptfiles are not counted) the package tree may hold: past it, no
   * function runs and the outcome says `tooManyResources`. Absent: no limit (the CLI's default).
   */
  maxResources?: number;
  /**
   * Record `kpt-fn` in the `cnrm.cloud.google.com/blueprint` annotation of Config Connector resources,
   * as `kpt fn render` does after a successful render (off where KPT_DISABLE_ATTRIBUTION is set).
   */
  attribution?: boolean;
  /** Parsed files kept across renders (the bot's): a file parsed before is not parsed again. */
  parseCache?: ParseCache;
  /**
   * Runtimes whose functions are left out of this render rather than run or refused: each such step
   * is passed over (its input goes on unchanged) and named in the outcome's `heldBack`. The bot holds
   * back exec and container functions of content no maintainer has vouched for yet (an adopted fork).
   */
  holdBack?: readonly ("exec" | "container")[];
  /**
   * kpt v1.0.0-beta.62's `kpt.dev/save-on-render-failure` (Porch's kpt; beta.56 has none): a render that
   * fails still writes the resources as the functions that ran left them, in `outcome.partialTree`.
   */
  saveOnFailure?: boolean;
}

/** A render's failure, carrying the resources as far as the render got (the failing step's input). */
class PartialRender extends Error {
  constructor(
    override readonly cause: unknown,
    readonly items: Document[],
  ) {
    super(errorMessage(cause));
  }
}

export interface RenderOutcome {
  ok: boolean;
  /** The files after the render; the input tree when the render failed (nothing is written). */
  tree: FileTree;
  /**
   * The root package's items after the pipeline (annotated as kpt hands them on), for `--output stdout`.
   * A render that writes files leaves out the documents of files it writes back unread (items.ts's
   * keptAsRead).
   */
  items: Document[];
  root?: KptPackage;
  /** Absolute package directory (as in the package-path annotation) → tree-relative directory. */
  packageDirs: Map<string, string>;
  records: FunctionRecord[];
  /** The resource files of the tree after the render (what `--output DIR` writes). */
  resourceFiles: string[];
  /** Why the render failed; `shown` when the failing function's output was already reported as events. */
  /** `bare`: kpt prints this error as it is, without its `Error:` prefix (its "Kptfile is invalid"). */
  error?: { message: string; shown: boolean; bare?: boolean };
  functionCount: number;
  /** The functions `holdBack` left out, in pipeline order: the image or exec, after `<subpackage dir>: ` below the root. */
  heldBack?: string[];
  packageCount: number;
  /** The resources (YAML documents; the Kptfiles are not counted) the package tree holds; absent or 0 when it did not load. */
  resourceCount?: number;
  /** Set when the tree holds more than `maxResources`: nothing ran. */
  tooManyResources?: { found: number; max: number };
  /** With `saveOnFailure`, a failed render's files: the resources as the functions that ran left them. */
  partialTree?: FileTree;
}

/**
 * kpt fn render over an in-memory package tree: depth first, each package's mutators then its
 * validators; a package's pipeline sees its subpackages' resources. Pure apart from running function
 * processes: reads nothing from and writes nothing to disk.
 */
export async function render(tree: FileTree, rootPath: string, env: RenderEnv): Promise<RenderOutcome> {
  const packageDirs = new Map<string, string>();
  const outcome: RenderOutcome = {
    ok: false,
    tree,
    items: [],
    packageDirs,
    records: [],
    resourceFiles: [],
    functionCount: 0,
    packageCount: 0,
    resourceCount: 0,
  };
  let root: KptPackage;
  try {
    root = loadPackage(tree, rootPath, {
      cache: env.parseCache,
      // Without functions, files kpt-form.ts formats need not be read (keptAsRead).
      leaveUnread: env.writeFiles !== false && runsNoFunction(tree),
    });
    checkFunctionConfigs(root, tree, false);
  } catch (e) {
    outcome.error = {
      message: readErrorMessage(e, env.rootDir),
      shown: false,
      bare: e instanceof KptfileInvalidError,
    };
    return outcome;
  }
  outcome.root = root;
  outcome.resourceCount = countResources(root);
  if (env.maxResources !== undefined && outcome.resourceCount > env.maxResources) {
    const found = outcome.resourceCount;
    outcome.tooManyResources = { found, max: env.maxResources };
    outcome.error = {
      message: `${root.path || "."}: ${found} resources, more than the limit of ${env.maxResources}; split the package, or raise the limit`,
      shown: false,
    };
    return outcome;
  }
  const rootDir = env.rootDir ?? "/";
  const ctx: StepContext = {
    env,
    runners: runnersFor(env, rootDir),
    records: outcome.records,
    emit: env.onEvent ?? (() => {}),
    ...newItemNotes(),
    checked: new WeakSet(),
  };
  const kept: ResourceFile[] = [];
  try {
    outcome.items = await renderPackage(root, tree, rootDir, packageDirs, ctx, outcome, kept);
    if (env.attribution) for (const d of outcome.items) attribute(d, "fn");
    if (env.writeFiles !== false) {
      outcome.tree = itemsToTree(
        tree,
        resourceFilePaths(root),
        outcome.items,
        packageDirs,
        root.path,
        outcome.resourceFiles,
        kept,
      );
    }
    outcome.ok = true;
  } catch (caught) {
    const e = caught instanceof PartialRender ? caught.cause : caught;
    outcome.error = {
      message: errorMessage(e),
      shown: e instanceof StepFailed && e.shown,
      bare: e instanceof KptfileInvalidError,
    };
    outcome.tree = tree;
    if (caught instanceof PartialRender && env.writeFiles !== false) {
      // kpt's hydrate: the root's resources as far as the failed render got, written as a render writes
      if (env.attribution) for (const d of caught.items) attribute(d, "fn");
      outcome.partialTree = itemsToTree(
        tree,
        resourceFilePaths(root),
        caught.items,
        packageDirs,
        root.path,
        [],
        kept,
      );
    }
  }
  return outcome;
}

/**
 * The runtimes the tree's pipelines need: always builtin; exec for an `exec:` function; container for
 * an image no builtin stands for. A Kptfile that does not parse is skipped (the render reports it).
 * `memo`: what each Kptfile's text needs, kept by the caller (a renderer asks it of every push's tree,
 * whose Kptfiles seldom change).
 */
export function runtimesNeeded(
  tree: FileTree,
  registry: FunctionRegistry,
  memo?: {
    get(text: string): readonly RuntimeKind[] | undefined;
    set(text: string, needed: readonly RuntimeKind[]): void;
  },
): RuntimeKind[] {
  const needed = new Set<RuntimeKind>(["builtin"]);
  for (const [path, bytes] of tree) {
    if (!isKptfilePath(path)) continue;
    const text = bytes.toString("utf8");
    let found = memo?.get(text);
    if (!found) {
      found = kptfileRuntimes(text, path, registry);
      memo?.set(text, found);
    }
    for (const r of found) needed.add(r);
  }
  return [...needed];
}

/** The runtimes one Kptfile's pipeline needs beyond builtins, in the order first met (none where it does not parse). */
function kptfileRuntimes(text: string, path: string, registry: FunctionRegistry): RuntimeKind[] {
  const needed = new Set<RuntimeKind>();
  try {
    const { kptfile } = parseKptfile(text, path);
    for (const fn of [...(kptfile.pipeline?.mutators ?? []), ...(kptfile.pipeline?.validators ?? [])]) {
      if (fn.exec) needed.add("exec");
      else if (fn.image && !registry.find(fn.image)) needed.add("container");
    }
  } catch {
    // The render reports a Kptfile that does not parse.
  }
  return [...needed];
}

/**
 * True when no Kptfile of the tree can hold a pipeline: none has the word "pipeline" in it (nor a
 * backslash, with which a quoted key could spell it), so the render runs no function.
 */
export function runsNoFunction(tree: FileTree): boolean {
  for (const [path, bytes] of tree) {
    if (!isKptfilePath(path)) continue;
    if (bytes.includes("pipeline") || bytes.includes("\\")) return false;
  }
  return true;
}

/** The resources of a package tree: its files' YAML documents, without the Kptfiles (not resources, to a user). */
function countResources(pkg: KptPackage): number {
  let n = 0;
  for (const f of pkg.resourceFiles) n += f.kptForm?.docs.length ?? f.docs.length;
  for (const s of pkg.subpackages) n += countResources(s);
  return n;
}

async function renderPackage(
  pkg: KptPackage,
  tree: FileTree,
  rootDir: string,
  packageDirs: Map<string, string>,
  ctx: StepContext,
  outcome: RenderOutcome,
  kept: ResourceFile[],
): Promise<Document[]> {
  let items: Document[] = [];
  const absDir = pkg.path === "" ? rootDir : posix.join(rootDir, pkg.path);
  const own = () => packageItems(pkg, tree, absDir, ctx, kept);
  for (const sub of pkg.subpackages) {
    try {
      const subItems = await renderPackage(sub, tree, rootDir, packageDirs, ctx, outcome, kept);
      for (const d of subItems) items.push(d);
    } catch (e) {
      // kpt keeps the package's own resources and what its subpackages gave, the failing one's partial
      if (!(e instanceof PartialRender) || !ctx.env.saveOnFailure) throw e;
      packageDirs.set(absDir, pkg.path);
      throw new PartialRender(e.cause, [...own(), ...items, ...e.items]);
    }
  }
  packageDirs.set(absDir, pkg.path);
  for (const d of own()) items.push(d);
  outcome.packageCount++;
  ctx.emit({ type: "package", path: pkg.path });
  const pipeline = pkg.kptfile.pipeline;
  checkFunctionConfigs(pkg, tree, true);
  if ((pipeline?.mutators?.length ?? 0) + (pipeline?.validators?.length ?? 0) === 0) checkKrm(items, ctx);
  try {
    for (const fn of pipeline?.mutators ?? []) {
      if (heldBack(fn, pkg, ctx.env, outcome)) continue;
      items = await runFunction(fn, items, pkg, tree, absDir, ctx, false);
      outcome.functionCount++;
    }
    for (const fn of pipeline?.validators ?? []) {
      if (heldBack(fn, pkg, ctx.env, outcome)) continue;
      await runFunction(fn, items, pkg, tree, absDir, ctx, true);
      outcome.functionCount++;
    }
  } catch (e) {
    // the resources as the mutators that ran left them (kpt's runMutators returns its input so far)
    throw ctx.env.saveOnFailure ? new PartialRender(e, items) : e;
  }
  return items;
}

/** Whether `fn` needs a runtime the render holds back; if so it is named in `outcome.heldBack`. */
function heldBack(fn: KptFunction, pkg: KptPackage, env: RenderEnv, outcome: RenderOutcome): boolean {
  if (!env.holdBack?.length) return false;
  const runtime = fn.exec ? "exec" : fn.image && !env.registry.find(fn.image) ? "container" : "builtin";
  if (runtime === "builtin" || !env.holdBack.includes(runtime)) return false;
  const name = fn.exec ?? fn.image ?? "";
  outcome.heldBack = [...(outcome.heldBack ?? []), pkg.path ? `${pkg.path}: ${name}` : name];
  return true;
}

/**
 * kpt checks every function config of a pipeline before it runs any function: that each file exists and
 * holds one resource when it reads the packages, that it is the package's own when the package runs.
 */
function checkFunctionConfigs(pkg: KptPackage, tree: FileTree, running: boolean): void {
  if (!running) for (const sub of pkg.subpackages) checkFunctionConfigs(sub, tree, false);
  for (const kind of ["mutators", "validators"] as const) {
    (pkg.kptfile.pipeline?.[kind] ?? []).forEach((fn, i) => {
      functionConfigOf(fn, tree, pkg.path, `pipeline.${kind}[${i}].configPath`, running);
    });
  }
}

async function runFunction(
  fn: KptFunction,
  items: Document[],
  pkg: KptPackage,
  tree: FileTree,
  absDir: string,
  ctx: StepContext,
  validator: boolean,
): Promise<Document[]> {
  const spec: FunctionSpec = fn.image ? { image: qualifiedImage(fn.image) } : { exec: fn.exec };
  if (spec.exec && !ctx.env.allowExec) {
    throw new Error("must run with `--allow-exec` option to allow running function binaries");
  }
  // kpt (beta15+) gives a mutator the current version of its configPath resource: functions that ran
  // before it may have changed it (internal/util/render/executor.go runMutators).
  const functionConfig =
    (!validator && fn.configPath !== undefined && currentConfigItem(items, absDir, fn.configPath)) ||
    functionConfigOf(fn, tree, pkg.path);
  return runStep(
    {
      spec,
      functionConfig,
      selectors: fn.selectors ?? [],
      exclude: fn.exclude ?? [],
      validator,
      packageDir: absDir,
      execBaseDir: ctx.env.execDir ?? absDir,
    },
    items,
    ctx,
  );
}

/** The package's own item from the file `configPath` (the last one, as kpt's loop leaves it). */
function currentConfigItem(
  items: readonly Document[],
  absDir: string,
  configPath: string,
): Document | undefined {
  let found: Document | undefined;
  for (const item of items) {
    if (getAnnotation(item, ANNOTATION.packagePath) !== absDir) continue;
    const path = getAnnotation(item, ANNOTATION.path) ?? getAnnotation(item, ANNOTATION.internalPath);
    if (path === configPath) found = item;
  }
  return found?.clone();
}

export function runnersFor(env: RenderEnv, rootDir: string): StepContext["runners"] {
  const hints = {
    execAllowed: env.allowExec,
    containerAllowed: env.allowContainer,
    ...(env.allowedBy ? { allowedBy: env.allowedBy } : {}),
  };
  return {
    builtin: env.runners?.builtin ?? new BuiltinRunner(env.registry, hints),
    exec: (baseDir: string) => env.runners?.exec ?? new ExecRunner(baseDir || rootDir),
    container: env.allowContainer
      ? (env.runners?.container ??
        new ContainerRunner(
          () => detectEngine(env.containerEngine),
          env.allowNetwork ?? false,
          env.imageCheck,
        ))
      : undefined,
  };
}

/**
 * kpt's text for a Kptfile it cannot read (kptfileKptText), then porchlight's where kpt's details are
 * its decoder's own words or kpt refuses the Kptfile's type.
 */
function unreadableKptfile(e: unknown, rootDir: string | undefined): string | undefined {
  if (!(e instanceof KptError)) return undefined;
  const file = e.position.file;
  // On disk kpt names the absolute directory; in a repository (the bot) the package path does.
  const dir = rootDir === undefined ? posix.dirname(file) : posix.join(rootDir, posix.dirname(file));
  const kpt = kptfileKptText(e, dir);
  if (kpt === undefined) return undefined;
  return kpt.endsWith(e.message) ? kpt : `${kpt}\n${e.message}`;
}

/**
 * What porchlight says when a package cannot be read: kpt's words first where kpt's are fixed (the
 * Kptfile's "can't be read", a resource file's `MalformedYAMLError`), then where porchlight found it.
 */
export function readErrorMessage(e: unknown, rootDir: string | undefined): string {
  const kptfile = unreadableKptfile(e, rootDir);
  if (kptfile) return kptfile;
  if (e instanceof YamlError && e.kptDetail) {
    // kpt names the file by its absolute path on disk; in a repository (the bot) by the package path.
    const file = rootDir === undefined ? e.position.file : posix.join(rootDir, e.position.file);
    return `${file}: MalformedYAMLError: ${e.kptDetail}\n${e.message}`;
  }
  return errorMessage(e);
}

export function errorMessage(e: unknown): string {
  if (e instanceof FunctionExitError) return e.message;
  // kpt's fixed text first (scripts grep it), then where porchlight found the problem.
  if (e instanceof KptfileInvalidError) return `${e.kptText}${e.message}`;
  if (e instanceof Error) return e.message;
  return String(e);
}
