import type { RepoPort } from "../../github/port.js";
import { heldBackText } from "../adopted-trust.js";
import {
  type Conclusion,
  findingAnnotations,
  findingCounts,
  reportCheck,
  scopedFindings,
} from "../check-report.js";
import { CHECK } from "../context.js";
import type { RenderFinding } from "../renderer.js";

/** The external id of a render check the bot could not finish: not done, the next sweep retries. */
const INCOMPLETE = "porchlight:incomplete";
/**
 * The external id of every other render check the draft render writes (it replaces INCOMPLETE when a
 * retry finishes). Only this mark on a head means "rendered": the proposal check also writes
 * `porchlight/render`, and its verdict on an unrendered head ("differs from the rendered output")
 * leaves the rendering still to do.
 */
const FINISHED = "porchlight:rendered";
/**
 * The external id of a render that ran builtins only and held back the exec and container functions
 * of an adopted fork's content: done while no maintainer has vouched for it, to do again once one has.
 */
const HELD = "porchlight:rendered-held";

export interface RenderReport {
  pkg: string;
  sha: string;
  findings: readonly RenderFinding[];
  /** The render failed with this message (nothing was pushed). */
  error?: string;
  /** The bot could not finish (not the package's fault): the check says so and a sweep retries it. */
  incomplete?: boolean;
  /**
   * The render was stopped past the operator's bound (PORCHLIGHT_RENDER_TIMEOUT_MS): the error says
   * after how long. Done for this head, as any failure: the same files would run as long again.
   */
  tookTooLong?: boolean;
  /** The render did not run: the package is over this limit (the error says which and how to raise it). */
  limit?: string;
  /** The rendered result was pushed as this commit. */
  pushedAs?: string;
  /** This commit holds the result the bot rendered from `renderedFrom`. */
  renderedFrom?: string;
  /** Functions held back (not run) until a maintainer vouches for the content: see adopted-trust.ts. */
  heldBack?: readonly string[];
  /**
   * The files whose info results are annotated (annotation-scope.ts); the others' are counted in the
   * summary, annotated on the checks of the commits that changed them. Undefined: every file's.
   */
  infoScope?: ReadonlySet<string>;
}

/** `porchlight/render` on one commit of a draft: every function result annotated, and a summary. */
export function reportRender(port: RepoPort, r: RenderReport): Promise<number> {
  const counts = findingCounts(r.findings);
  let conclusion: Conclusion = "success";
  let title: string;
  let summary: string;
  if (r.error !== undefined && r.incomplete) {
    conclusion = "failure";
    title = `Rendering ${r.pkg} did not finish`;
    summary = `porchlight could not finish rendering \`${r.pkg}\`, so nothing was committed. This is not a problem in the package: it is tried again at the next sweep, or push again.\n\n${r.error}`;
  } else if (r.error !== undefined && r.tookTooLong) {
    conclusion = "failure";
    title = `Rendering ${r.pkg} took too long`;
    summary = `porchlight stopped rendering \`${r.pkg}\`, so nothing was committed: a function or a file of the package kept the renderer busy past the bound the app's operator set. This commit is not rendered again; push a change (\`porchlight fn render ${r.pkg}\` in a clone shows where it spends the time), or ask the operator to raise the bound.\n\n${r.error}`;
  } else if (r.error !== undefined && r.limit !== undefined) {
    conclusion = "failure";
    title = `${r.pkg} is over the ${r.limit} limit`;
    summary = `porchlight did not render \`${r.pkg}\`, so nothing was committed: the package is over one of porchlight's limits.\n\n${r.error}`;
  } else if (r.error !== undefined) {
    conclusion = "failure";
    title = `Rendering ${r.pkg} failed`;
    summary = `The function pipeline of \`${r.pkg}\` failed, so nothing was committed. Fix the problem and push again.\n\n${r.error}`;
  } else if (r.heldBack?.length) {
    conclusion = "action_required";
    const n = r.heldBack.length;
    title = `Rendered ${r.pkg} with builtins only: ${n} ${n === 1 ? "function waits" : "functions wait"} for a maintainer`;
    const done = r.pushedAs
      ? `porchlight committed what the builtin functions changed as ${r.pushedAs}.`
      : r.renderedFrom
        ? `This commit is porchlight's render of ${r.renderedFrom.slice(0, 7)} with builtin functions only.`
        : "The committed files are the builtin functions' output.";
    summary = `${done} Results: ${counts}.\n\n${heldBackText(r.heldBack)}`;
  } else if (r.pushedAs) {
    title = `Rendered ${r.pkg}: pushed ${r.pushedAs.slice(0, 7)}`;
    summary = `The pipeline changed files, so porchlight committed the rendered package as ${r.pushedAs}. Results: ${counts}.`;
  } else if (r.renderedFrom) {
    title = `Rendered ${r.pkg} (${counts})`;
    summary = `This commit is porchlight's render of ${r.renderedFrom.slice(0, 7)}. Results: ${counts}.`;
  } else {
    title = `Rendered ${r.pkg} (${counts})`;
    summary = `The committed files are the pipeline's output. Results: ${counts}.`;
  }
  const { shown, elsewhere } = scopedFindings(r.findings, r.infoScope);
  if (elsewhere > 0) {
    const n = elsewhere.toLocaleString("en-US");
    summary += `\n\n${n} info ${elsewhere === 1 ? "result is" : "results are"} on files this commit did not change: annotated on the checks of the commits that changed them.`;
  }
  return reportCheck(port, {
    name: CHECK.render,
    headSha: r.sha,
    externalId: r.incomplete ? INCOMPLETE : r.heldBack?.length && r.error === undefined ? HELD : FINISHED,
    conclusion,
    title,
    summary,
    annotations: findingAnnotations(r.pkg, shown),
    seeAll: `Run \`porchlight fn render ${r.pkg}\` (or \`kpt fn render ${r.pkg}\`) in a clone to see them all.`,
  });
}

/**
 * Whether this job (or fan-out, which renders what it pushes) finished `porchlight/render` on `sha`: a
 * check it could not finish does not count, nor does the proposal check's verdict on a head not yet
 * rendered. A render that held functions back counts while no maintainer has vouched for the content.
 */
export async function renderDone(
  port: RepoPort,
  sha: string,
  /** Whether functions are still held back at `sha` (asked only of a render that held some back). */
  stillHeld: () => Promise<boolean> = async () => false,
): Promise<boolean> {
  const runs = await port.listCheckRuns(sha);
  const done = runs.filter((r) => r.name === CHECK.render && r.status === "completed");
  if (done.some((r) => r.externalId === FINISHED)) return true;
  return done.some((r) => r.externalId === HELD) && (await stillHeld());
}

/**
 * `porchlight/render` on the head of a branch under `drafts/` whose name porchlight cannot use (`reason`
 * says which rule): failing, final for that head, saying how to name the branch instead.
 */
export function reportRefusedName(
  port: RepoPort,
  r: { branch: string; sha: string; reason: string },
): Promise<number> {
  return reportCheck(port, {
    name: CHECK.render,
    headSha: r.sha,
    externalId: FINISHED,
    conclusion: "failure",
    title: `${r.branch} is not a draft name porchlight can use`,
    summary: `porchlight renders and proposes branches named \`drafts/<package>/<workspace>\`, and did not render this one: ${r.reason}. Push the same commits to a branch named so (\`git push origin HEAD:drafts/<package>/<workspace>\`), then delete this one.`,
  });
}
