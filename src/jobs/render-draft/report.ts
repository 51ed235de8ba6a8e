import type { CheckRunState, RepoChecks, RepoPort } from "../../github/port.js";
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

/**
 * What a render of one commit came to, one case each: the check's conclusion, title and summary follow
 * from the case, and a case added is a compile error wherever one is left unsaid.
 */
export type RenderVerdict =
  /** The bot could not finish (not the package's fault): the check says so and a sweep retries it. */
  | { kind: "incomplete"; error: string }
  /**
   * The render was stopped past the operator's bound (PORCHLIGHT_RENDER_TIMEOUT_MS): the error says
   * after how long. Done for this head, as any failure: the same files would run as long again.
   */
  | { kind: "took-too-long"; error: string }
  /** The render did not run: the package is over this limit (the error says which and how to raise it). */
  | { kind: "over-limit"; limit: string; error: string }
  /** The function pipeline failed with this message (nothing was pushed). */
  | { kind: "failed"; error: string }
  /**
   * Not rendered, before any function ran: the draft is no package porchlight renders as it stands (no
   * Kptfile, outside the package root, a YAML file that is a symbolic link); the error says what to change.
   */
  | { kind: "refused"; error: string }
  /**
   * Rendered; with `heldBack`, builtins only: those functions wait (not run) until a maintainer vouches
   * for the content (adopted-trust.ts).
   */
  | { kind: "rendered"; commit: RenderedCommit; heldBack?: readonly string[] };

/** Where a render's result is, seen from the commit the check is on. */
type RenderedCommit =
  /** This commit's files are the pipeline's output (it changed nothing, or the push was refused). */
  | { kind: "as-is" }
  /** The rendered result was pushed as this commit. */
  | { kind: "pushed"; as: string }
  /** This commit holds the result the bot rendered from `from`. */
  | { kind: "render-of"; from: string };

export interface RenderReport {
  pkg: string;
  sha: string;
  findings: readonly RenderFinding[];
  verdict: RenderVerdict;
  /**
   * The files whose info results are annotated (annotation-scope.ts); the others' are counted in the
   * summary, annotated on the checks of the commits that changed them. Undefined: every file's.
   */
  infoScope?: ReadonlySet<string>;
}

/** `porchlight/render` on one commit of a draft: every function result annotated, and a summary. */
export function reportRender(port: RepoPort, r: RenderReport): Promise<number> {
  const said = verdictText(r.pkg, r.verdict, findingCounts(r.findings));
  let summary = said.summary;
  const { shown, elsewhere } = scopedFindings(r.findings, r.infoScope);
  if (elsewhere > 0) {
    const n = elsewhere.toLocaleString("en-US");
    summary += `\n\n${n} info ${elsewhere === 1 ? "result is" : "results are"} on files this commit did not change: annotated on the checks of the commits that changed them.`;
  }
  const v = r.verdict;
  return reportCheck(port, {
    name: CHECK.render,
    headSha: r.sha,
    externalId:
      v.kind === "incomplete" ? INCOMPLETE : v.kind === "rendered" && v.heldBack?.length ? HELD : FINISHED,
    conclusion: said.conclusion,
    title: said.title,
    summary,
    annotations: findingAnnotations(r.pkg, shown),
    seeAll: `Run \`porchlight fn render ${r.pkg}\` (or \`kpt fn render ${r.pkg}\`) in a clone to see them all.`,
  });
}

/** A verdict as the check says it. */
function verdictText(
  pkg: string,
  v: RenderVerdict,
  counts: string,
): { conclusion: Conclusion; title: string; summary: string } {
  switch (v.kind) {
    case "incomplete":
      return {
        conclusion: "failure",
        title: `Rendering ${pkg} did not finish`,
        summary: `porchlight could not finish rendering \`${pkg}\`, so nothing was committed. This is not a problem in the package: it is tried again at the next sweep, or push again.\n\n${v.error}`,
      };
    case "took-too-long":
      return {
        conclusion: "failure",
        title: `Rendering ${pkg} took too long`,
        summary: `porchlight stopped rendering \`${pkg}\`, so nothing was committed: a function or a file of the package kept the renderer busy past the bound the app's operator set. This commit is not rendered again; push a change (\`porchlight fn render ${pkg}\` in a clone shows where it spends the time), or ask the operator to raise the bound.\n\n${v.error}`,
      };
    case "over-limit":
      return {
        conclusion: "failure",
        title: `${pkg} is over the ${v.limit} limit`,
        summary: `porchlight did not render \`${pkg}\`, so nothing was committed: the package is over one of porchlight's limits.\n\n${v.error}`,
      };
    case "refused":
      return {
        conclusion: "failure",
        title: `${pkg} was not rendered`,
        summary: `porchlight did not render \`${pkg}\`, so nothing was committed.\n\n${v.error}`,
      };
    case "failed":
      return {
        conclusion: "failure",
        title: `Rendering ${pkg} failed`,
        summary: `The function pipeline of \`${pkg}\` failed, so nothing was committed. Fix the problem and push again.\n\n${v.error}`,
      };
    case "rendered":
      return v.heldBack?.length
        ? heldBackSaid(pkg, v.commit, v.heldBack, counts)
        : renderedText(pkg, v.commit, counts);
  }
}

function renderedText(
  pkg: string,
  commit: RenderedCommit,
  counts: string,
): { conclusion: Conclusion; title: string; summary: string } {
  switch (commit.kind) {
    case "pushed":
      return {
        conclusion: "success",
        title: `Rendered ${pkg}: pushed ${commit.as.slice(0, 7)}`,
        summary: `The pipeline changed files, so porchlight committed the rendered package as ${commit.as}. Results: ${counts}.`,
      };
    case "render-of":
      return {
        conclusion: "success",
        title: `Rendered ${pkg} (${counts})`,
        summary: `This commit is porchlight's render of ${commit.from.slice(0, 7)}. Results: ${counts}.`,
      };
    case "as-is":
      return {
        conclusion: "success",
        title: `Rendered ${pkg} (${counts})`,
        summary: `The committed files are the pipeline's output. Results: ${counts}.`,
      };
  }
}

/** A render with builtins only, the other functions waiting for a maintainer. */
function heldBackSaid(
  pkg: string,
  commit: RenderedCommit,
  heldBack: readonly string[],
  counts: string,
): { conclusion: Conclusion; title: string; summary: string } {
  const n = heldBack.length;
  const done =
    commit.kind === "pushed"
      ? `porchlight committed what the builtin functions changed as ${commit.as}.`
      : commit.kind === "render-of"
        ? `This commit is porchlight's render of ${commit.from.slice(0, 7)} with builtin functions only.`
        : "The committed files are the builtin functions' output.";
  return {
    conclusion: "action_required",
    title: `Rendered ${pkg} with builtins only: ${n} ${n === 1 ? "function waits" : "functions wait"} for a maintainer`,
    summary: `${done} Results: ${counts}.\n\n${heldBackText(heldBack)}`,
  };
}

/**
 * Whether this job (or fan-out, which renders what it pushes) finished `porchlight/render` on `sha`: a
 * check it could not finish does not count, nor does the proposal check's verdict on a head not yet
 * rendered. A render that held functions back counts while no maintainer has vouched for the content.
 */
export async function renderDone(
  port: RepoChecks,
  sha: string,
  /** Whether functions are still held back at `sha` (asked only of a render that held some back). */
  stillHeld: () => Promise<boolean> = async () => false,
): Promise<boolean> {
  const runs = await port.listCheckRuns(sha, [CHECK.render]);
  if (finishedRender(runs)) return true;
  return (
    runs.some((r) => r.name === CHECK.render && r.status === "completed" && r.externalId === HELD) &&
    (await stillHeld())
  );
}

/** Of a commit's check runs, the render check this job finished (renderDone's mark, nothing held back). */
export function finishedRender(runs: readonly CheckRunState[]): CheckRunState | undefined {
  return runs.find((r) => r.name === CHECK.render && r.status === "completed" && r.externalId === FINISHED);
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
