import type { RepoPort } from "../../github/port.js";
import type { FileTree } from "../../kpt/tree.js";
import { changeScope } from "../check-report.js";
import { differingPaths } from "../packages.js";
import { renderDone } from "./report.js";

/**
 * Which files of a package the render check annotates with info results (errors and warnings are
 * always annotated): the files this commit changed, when its first parent's render check is done and
 * so shows the others — each info result is annotated on the check of the commit that last changed
 * its file, as linters annotate the lines a change touched. Five hundred unchanged "set field value"
 * notices on every push cost ten check-run writes and hide what the push did.
 *
 * Undefined (every file) when there is no such parent, or when the commit changed what every file's
 * render reads: a Kptfile (the pipeline, inline function configs) or a function's `configPath` file.
 */
export async function infoScope(
  port: RepoPort,
  input: { sha: string; pkg: string; tree: FileTree },
  /** The commit's change to its parent, asked of git already (port.parentChange). */
  change: ReturnType<RepoPort["parentChange"]> = port.parentChange(input.sha, input.pkg),
): Promise<ReadonlySet<string> | undefined> {
  const { parent, paths } = await change;
  if (!parent) return undefined;
  const scope = changeScope(paths, input.tree);
  if (!scope || !(await renderDone(port, parent))) return undefined;
  return scope;
}

/** The scope widened by the files a render changed (what the bot commits on top of the scoped commit). */
export function widenScope(
  scope: ReadonlySet<string> | undefined,
  before: FileTree,
  after: FileTree,
): ReadonlySet<string> | undefined {
  return scope && new Set([...scope, ...differingPaths(before, after)]);
}
