import type { Document } from "yaml";
import type { FunctionSpec } from "../fn/runtime/types.js";
import type { Selector } from "../kpt/kptfile.js";
import { krmIgnoredInTree } from "../kpt/krmignore.js";
import type { FileTree } from "../kpt/tree.js";
import { decodeUtf8 } from "../kpt/yaml/utf8.js";
import { isYamlFileName, parseYamlFile } from "../kpt/yaml/yamlfile.js";
import { type ItemNotes, newItemNotes, packageItemsFromFiles } from "./items.js";
import type { RenderEnv, RenderOutcome } from "./render.js";
import { errorMessage, readErrorMessage, runnersFor } from "./render.js";
import { runStep, StepFailed } from "./step.js";
import { holdsDocuments, itemsToTree } from "./write.js";

export interface EvalRequest {
  fn: FunctionSpec;
  functionConfig?: Document;
  selectors: Selector[];
  exclude: Selector[];
}

/**
 * kpt fn eval: one function over every resource below a directory (Kptfiles included, subpackages
 * too), paths relative to that directory; the result written back as render writes it.
 */
export async function evalFunction(
  tree: FileTree,
  request: EvalRequest,
  env: RenderEnv,
): Promise<RenderOutcome> {
  const outcome = emptyOutcome(tree, env);
  const packageDirs = outcome.packageDirs;
  const rootDir = env.rootDir ?? "/";
  const files: { path: string; text: string; docs: Document[] }[] = [];
  const ignored = krmIgnoredInTree(tree);
  try {
    for (const [path, bytes] of [...tree].sort(([a], [b]) => (a < b ? -1 : 1))) {
      if (!isYamlFileName(path) || ignored(path)) continue;
      const text = decodeUtf8(bytes, path);
      files.push({ path, text, docs: parseYamlFile(text, path).docs });
    }
  } catch (e) {
    outcome.error = { message: readErrorMessage(e, env.rootDir), shown: false };
    return outcome;
  }
  const notes = newItemNotes();
  const items = packageItemsFromFiles(files, rootDir, notes);
  const written = files.filter(holdsDocuments).map((f) => f.path);
  return runEval(items, notes, request, env, outcome, (out) => {
    if (env.writeFiles !== false) {
      out.tree = itemsToTree(tree, written, out.items, packageDirs, "", out.resourceFiles);
    }
  });
}

/**
 * kpt fn eval over a ResourceList (`kpt fn eval -`): the function gets the items as they came, their
 * annotations and comments untouched (kpt adds no path or index to items that have none), and the
 * result is the list of items, not files.
 */
export async function evalItems(
  items: Document[],
  request: EvalRequest,
  env: RenderEnv,
): Promise<RenderOutcome> {
  const notes = newItemNotes();
  return runEval(items, notes, request, env, emptyOutcome(new Map(), env), () => {}, false);
}

/** An eval's outcome before it runs: one function over the one package at `env.rootDir`. */
function emptyOutcome(tree: FileTree, env: RenderEnv): RenderOutcome {
  return {
    ok: false,
    tree,
    items: [],
    packageDirs: new Map([[env.rootDir ?? "/", ""]]),
    records: [],
    resourceFiles: [],
    functionCount: 1,
    packageCount: 0,
  };
}

async function runEval(
  items: Document[],
  notes: ItemNotes,
  request: EvalRequest,
  env: RenderEnv,
  outcome: RenderOutcome,
  write: (outcome: RenderOutcome) => void,
  placeNew = true,
): Promise<RenderOutcome> {
  const rootDir = env.rootDir ?? "/";
  const ctx = {
    env,
    runners: runnersFor(env, rootDir),
    records: outcome.records,
    emit: env.onEvent ?? (() => {}),
    ...notes,
    checked: new WeakSet<Document>(),
  };
  try {
    outcome.items = await runStep(
      {
        spec: request.fn,
        functionConfig: request.functionConfig,
        selectors: request.selectors,
        exclude: request.exclude,
        validator: false,
        packageDir: rootDir,
        execBaseDir: env.execDir ?? rootDir,
        placeNew,
      },
      items,
      ctx,
    );
    write(outcome);
    outcome.ok = true;
  } catch (e) {
    outcome.error = { message: errorMessage(e), shown: e instanceof StepFailed && e.shown };
  }
  return outcome;
}
