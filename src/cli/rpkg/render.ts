import type { Runtime } from "../../config/index.js";
import { defaultRegistry } from "../../fn/registry.js";
import { DEFAULT_RUN_OPTIONS } from "../../fn/runtime/types.js";
import type { FunctionResult } from "../../fn/types.js";
import { KPTFILE_NAME } from "../../kpt/kptfile.js";
import type { FileTree } from "../../kpt/tree.js";
import { formatKptfile, type PlainKptfile, parseKptfileText } from "../../merge/kptfile.js";
import { type RenderOutcome, render } from "../../render/render.js";
import type { FunctionRecord } from "../../render/results.js";

/** The annotation of a package revision that lets Porch push a draft whose render failed. */
export const PUSH_ON_RENDER_FAILURE = "porch.kpt.dev/push-on-render-failure";

export type PorchRender =
  | { status: "rendered"; tree: FileTree }
  | { status: "failed"; tree: FileTree; message: string }
  /** A function needs a runtime the repository allows but the CLI does not run: the bot renders it. */
  | { status: "left-to-bot"; tree: FileTree; runtime: Runtime; image: string };

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
    onEvent: (e) => {
      if (e.type === "fail") failed = e.name;
    },
  });
  if (!outcome.ok) {
    const needed = outcome.root ? runtimeNeeded(tree, registry) : undefined;
    if (needed && runtimes?.includes(needed.runtime)) return { status: "left-to-bot", tree, ...needed };
  }
  const out: FileTree = new Map(outcome.ok ? outcome.tree : tree);
  const kptfile = out.get(KPTFILE_NAME);
  if (kptfile) {
    const written = withRenderStatus(kptfile, outcome, failed);
    if (written) out.set(KPTFILE_NAME, written);
  }
  if (outcome.ok) return { status: "rendered", tree: out };
  return { status: "failed", tree: out, message: outcome.error?.message ?? "the render failed" };
}

/** The first function of the tree's Kptfiles that no builtin stands for, and the runtime it needs. */
function runtimeNeeded(
  tree: FileTree,
  registry: ReturnType<typeof defaultRegistry>,
): { runtime: Runtime; image: string } | undefined {
  for (const [path, bytes] of tree) {
    if (path !== KPTFILE_NAME && !path.endsWith(`/${KPTFILE_NAME}`)) continue;
    let kf: PlainKptfile;
    try {
      kf = parseKptfileText(bytes.toString("utf8"), path);
    } catch {
      continue;
    }
    const fns = [...(kf.pipeline?.mutators ?? []), ...(kf.pipeline?.validators ?? [])] as {
      image?: string;
      exec?: string;
    }[];
    for (const fn of fns) {
      if (fn.exec) return { runtime: "exec", image: fn.exec };
      if (fn.image && !registry.find(fn.image)) return { runtime: "container", image: fn.image };
    }
  }
  return undefined;
}

/** The root Kptfile with the render's outcome recorded as kpt v1.0.0-beta.62 records it. */
function withRenderStatus(
  bytes: Buffer,
  outcome: RenderOutcome,
  failed: string | undefined,
): Buffer | undefined {
  let kf: PlainKptfile;
  try {
    kf = parseKptfileText(bytes.toString("utf8"), KPTFILE_NAME);
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
  const steps = outcome.records.map(stepOf);
  if (failed !== undefined && !outcome.records.some((r) => r.exitCode !== 0)) {
    // the function that could not start (an image not found): kpt records its execution error
    steps.push({ image: failed, exitCode: 1, executionError: outcome.error?.message ?? "" });
  }
  if (steps.length === 0) return undefined;
  const validators = outcome.records.map((r) => r.validator === true);
  const summary = outcome.ok
    ? undefined
    : steps
        .filter((s) => s.exitCode !== 0 || s.executionError)
        .map((s) => `${s.image ?? s.exec ?? ""}: ${s.executionError ?? `exit code ${s.exitCode}`}`)
        .join("\n");
  const mutationSteps = steps.filter((_, i) => !validators[i]);
  const validationSteps = steps.filter((_, i) => validators[i]);
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
