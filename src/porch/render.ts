import type { Runtime } from "../config/index.js";
import { defaultRegistry } from "../fn/registry.js";
import { DEFAULT_RUN_OPTIONS } from "../fn/runtime/types.js";
import type { FunctionResult } from "../fn/types.js";
import { KPTFILE_NAME, type PlainKptfile, readKptfileStruct } from "../kpt/kptfile.js";
import type { FileTree } from "../kpt/tree.js";
import { formatKptfile } from "../merge/kptfile.js";
import { type RenderOutcome, render, runtimesNeeded } from "../render/render.js";
import type { FunctionRecord } from "../render/results.js";

/** kpt's Kptfile annotation (v1.0.0-beta.62) that writes a failed render's partial result. */
const SAVE_ON_RENDER_FAILURE = "kpt.dev/save-on-render-failure";

/** The annotation of a package revision that lets Porch push a draft whose render failed. */
export const PUSH_ON_RENDER_FAILURE = "porch.kpt.dev/push-on-render-failure";

/** One function's run as porchctl push prints it: `[RUNNING] "IMAGE" ` then `[Results]: …`. */
export interface PorchStep {
  image: string;
  results: FunctionResult[];
}

export type PorchRender =
  | { status: "rendered"; tree: FileTree; steps: PorchStep[] }
  | { status: "failed"; tree: FileTree; message: string; steps: PorchStep[] }
  /** Functions need runtimes the repository allows but the CLI does not run: the bot renders it. */
  | { status: "left-to-bot"; tree: FileTree };

/**
 * Porch renders a draft each time its content changes (init, clone, copy, push, upgrade), with kpt
 * v1.0.0-beta.62, whose in-place render records its outcome in the root Kptfile: a `Rendered`
 * condition in `status.conditions` (status "True", reason RenderSuccess; or "False", RenderFailed and
 * the error as message) and, where the pipeline ran functions, `status.renderStatus` with each step's
 * image, exit code, results and stderr. The Kptfile is written back from kpt's struct, as kpt writes it.
 *
 * The command line runs porchlight's builtin functions only (catalog images), never exec or container
 * functions. A function it cannot run fails the render, as an image Porch cannot pull fails Porch's,
 * unless the repository's configuration (`functions.runtimes`) lists the runtime the function needs:
 * then the draft is pushed as it is, and the bot renders it with what its operator allows.
 */
export async function renderAsPorch(
  tree: FileTree,
  runtimes: readonly Runtime[] | undefined,
): Promise<PorchRender> {
  const registry = defaultRegistry();
  let failed: string | undefined;
  const outcome = await render(tree, "", {
    registry,
    run: DEFAULT_RUN_OPTIONS,
    attribution: true,
    saveOnFailure: savesOnFailure(tree.get(KPTFILE_NAME)),
    onEvent: (e) => {
      if (e.type === "fail") failed = e.name;
    },
  });
  if (!outcome.ok && outcome.root) {
    const elsewhere = runtimesNeeded(tree, registry).filter((r) => r !== "builtin");
    if (elsewhere.length > 0 && elsewhere.every((r) => runtimes?.includes(r)))
      return { status: "left-to-bot", tree };
  }
  // a failed render's files: as they came, or with save-on-render-failure as far as the render got
  const out: FileTree = new Map(outcome.ok ? outcome.tree : (outcome.partialTree ?? tree));
  const kptfile = out.get(KPTFILE_NAME);
  if (kptfile) {
    const written = withRenderStatus(kptfile, outcome, failed);
    if (written) out.set(KPTFILE_NAME, written);
  }
  const steps = outcome.records.map((r) => ({
    image: porchImage(r.image ?? r.exec ?? "", tree),
    results: r.results,
  }));
  if (outcome.ok) return { status: "rendered", tree: out, steps };
  return { status: "failed", tree: out, message: outcome.error?.message ?? "the render failed", steps };
}

/**
 * Whether the root Kptfile says `kpt.dev/save-on-render-failure: "true"` (any case, as kpt's ToCondition
 * reads it): kpt v1.0.0-beta.62 then writes a failed render's partial result.
 */
function savesOnFailure(kptfile: Buffer | undefined): boolean {
  if (!kptfile) return false;
  try {
    const kf = readKptfileStruct(kptfile.toString("utf8"), KPTFILE_NAME);
    const value = kf.metadata?.annotations?.[SAVE_ON_RENDER_FAILURE];
    return typeof value === "string" && value.toLowerCase() === "true";
  } catch {
    return false; // the render reports a Kptfile it cannot read
  }
}

/** Porch's kpt completes a catalog function's short name (`apply-setters:v0.2`) with ghcr.io/kptdev/krm-functions-catalog. */
function porchImage(image: string, tree: FileTree): string {
  const short = image.startsWith("gcr.io/kpt-fn/") ? image.slice("gcr.io/kpt-fn/".length) : undefined;
  if (short === undefined) return image;
  const named = [...tree].some(
    ([path, bytes]) =>
      (path === KPTFILE_NAME || path.endsWith(`/${KPTFILE_NAME}`)) &&
      new RegExp(`image:\\s*["']?${short.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}["']?\\s*$`, "m").test(
        bytes.toString("utf8"),
      ),
  );
  return named ? `ghcr.io/kptdev/krm-functions-catalog/${short}` : image;
}

/** The root Kptfile with the render's outcome recorded as kpt v1.0.0-beta.62 records it. */
function withRenderStatus(
  bytes: Buffer,
  outcome: RenderOutcome,
  failed: string | undefined,
): Buffer | undefined {
  let kf: PlainKptfile;
  try {
    kf = readKptfileStruct(bytes.toString("utf8"), KPTFILE_NAME);
  } catch {
    return undefined; // kpt leaves a Kptfile it cannot read as it is; the render error says why
  }
  const status: PlainKptfile = typeof kf.status === "object" && kf.status !== null ? kf.status : {};
  const conditions = Array.isArray(status.conditions) ? status.conditions : [];
  const rendered = outcome.ok
    ? { type: "Rendered", status: "True", reason: "RenderSuccess" }
    : { type: "Rendered", status: "False", reason: "RenderFailed", message: outcome.error?.message ?? "" };
  status.conditions = [...conditions.filter((c: { type?: unknown }) => c?.type !== "Rendered"), rendered];
  const steps = renderSteps(outcome, failed);
  if (steps) status.renderStatus = steps;
  else delete status.renderStatus;
  kf.status = status;
  return Buffer.from(formatKptfile(kf));
}

/** kpt's `renderStatus`: one entry per function of the root pipeline's run, mutators then validators. */
function renderSteps(outcome: RenderOutcome, failed: string | undefined): PlainKptfile | undefined {
  const mutationSteps = outcome.records.filter((r) => !r.validator).map(stepOf);
  const validationSteps = outcome.records.filter((r) => r.validator).map(stepOf);
  if (failed !== undefined && !outcome.records.some((r) => r.exitCode !== 0)) {
    // the function that could not start (an image not found): kpt records its execution error
    mutationSteps.push({ image: failed, exitCode: 1, executionError: outcome.error?.message ?? "" });
  }
  const steps = [...mutationSteps, ...validationSteps];
  if (steps.length === 0) return undefined;
  const summary = outcome.ok
    ? undefined
    : steps
        .filter((s) => s.exitCode !== 0 || s.executionError)
        .map((s) => `${s.image ?? s.exec ?? ""}: ${s.executionError ?? `exit code ${s.exitCode}`}`)
        .join("\n");
  return {
    ...(mutationSteps.length > 0 ? { mutationSteps } : {}),
    ...(validationSteps.length > 0 ? { validationSteps } : {}),
    ...(summary ? { errorSummary: summary } : {}),
  };
}

function stepOf(r: FunctionRecord): PlainKptfile {
  const results = r.results.map(resultItem);
  const errors = results.filter((x) => x.severity === "error");
  return {
    ...(r.image ? { image: r.image } : {}),
    ...(r.exec ? { exec: r.exec } : {}),
    ...(r.stderr ? { stderr: r.stderr } : {}),
    exitCode: r.exitCode,
    ...(results.length > 0 ? { results } : {}),
    ...(errors.length > 0 ? { errorResults: errors } : {}),
  };
}

function resultItem(r: FunctionResult): PlainKptfile {
  return {
    message: r.message,
    ...(r.severity ? { severity: r.severity } : {}),
    ...(r.resourceRef ? { resourceRef: r.resourceRef } : {}),
    ...(r.field ? { field: { path: r.field.path } } : {}),
    ...(r.file ? { file: r.file } : {}),
  };
}
