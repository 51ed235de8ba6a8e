import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { firstDifference } from "../cli/get-differential.js";
import { KPT_MISSING } from "../util/kpt.js";
import { testSize } from "../util/test-size.js";
import { boundedRenders, type Rendered, type RenderMode } from "./bounded-render.js";
import { commentFiles, leftOut } from "./comment-files.js";
import { type Job, jobKey, kptRenders } from "./kpt-batch.js";

/**
 * Issue 55: a blank first line, a bare `#`, then a key (`\n#\na:`) made every render loop for ever. The
 * property that would have found it: generated whole files (comment-files.ts: blank lines, lines of
 * spaces, `#`, `# `, `# text` at every column, line comments, `---` separators before, between and
 * after the documents) each render within a fixed budget, with no function and through `exec: cat`,
 * off the test's thread (a hang fails the test naming the seed and the file), and where kpt is
 * installed, each is what kpt writes, or both refuse it. kpt renders all of them in one run while
 * porchlight's renders go.
 *
 * Left out (comment-files.ts):
 * - from the files: an empty value (`k:`, `- `), lists of lists, tabs (kpt refuses a line of a tab at a
 *   file's start, porchlight renders it), a final line break missing after a comment line (the
 *   deviation "a foot kpt loses", and more), a line of spaces among a block scalar's lines;
 * - from the comparison with kpt, each file still rendered within the budget (LEFT_OUT): a document's
 *   last comment lines at column 0 then deeper; a flow mapping list item with a comment line next to
 *   it (`- {k: v,}`, or kpt loses the comment); a comment line at a list's column, a blank line, then
 *   the list's next `-` (kpt loses or moves it); through `exec: cat`, a document's last comment lines
 *   at two columns or more before another document (kpt copies one into the next document).
 *
 * PORCHLIGHT_PROPERTY_SEED sets the seed (a failure prints it), PORCHLIGHT_PROPERTY_COUNT the number of
 * files: 300 in `npm test` (each file holds several of every kind of line above, so 300 hold every
 * kind many times over), 1,000 in `npm run test:full`. PORCHLIGHT_PROPERTY_DUMP, a path, gets every
 * difference from kpt (the failure shows three).
 */
const SEED = Number(process.env.PORCHLIGHT_PROPERTY_SEED ?? 55);
const COUNT = testSize("PORCHLIGHT_PROPERTY_COUNT", 300, 1000);
const MODES: readonly RenderMode[] = ["none", "cat"];
/** Generous: a file renders in milliseconds, so no machine is slow enough to pass it but by a loop. */
const BUDGET_MS = 10_000;
/**
 * For the whole run, which a loop never reaches (the budget stops it first): some 15 s of CPU at 1,000
 * files, which a machine shared with other test files stretches past the suite's default.
 */
const RUN_MS = 300_000;
const REPLAY = `PORCHLIGHT_PROPERTY_SEED=${SEED} PORCHLIGHT_PROPERTY_COUNT=${COUNT}`;

const shown = (text: string | undefined) => (text === undefined ? "<deleted>" : JSON.stringify(text));
const modeName = (mode: RenderMode) => (mode === "none" ? "no function" : "exec: cat");

describe(`generated files with blank lines, comments and separators (seed ${SEED}, ${COUNT} files)`, () => {
  const files = fc.sample(commentFiles, { numRuns: COUNT, seed: SEED });
  const jobs = MODES.flatMap((mode) => files.map((_, index): Job => ({ index, mode })));
  const work = mkdtempSync(join(tmpdir(), "porchlight-comment-lines-"));
  const cat = join(work, "cat.sh");
  writeFileSync(cat, "#!/bin/sh\ncat\n", { mode: 0o755 });
  // kpt's run goes while porchlight's renders go (another process each)
  const kpt = KPT_MISSING === undefined ? kptRenders(files, jobs, join(work, "kpt"), cat) : undefined;
  let ours: Record<RenderMode, Rendered[]> | undefined;
  afterAll(async () => {
    await kpt?.catch(() => undefined);
    rmSync(work, { recursive: true, force: true });
  });

  it(
    `each renders within ${BUDGET_MS / 1000} s, with no function and through exec: cat`,
    async () => {
      const out = await boundedRenders(files, MODES, { budgetMs: BUDGET_MS, startMs: 60_000 });
      if (out.kind === "hung") {
        expect.fail(
          `seed ${SEED}: file ${out.index} did not render within ${out.budgetMs} ms (${modeName(out.mode)}); the render was stopped. The file: ${shown(files[out.index])} (${REPLAY})`,
        );
      }
      ours = out.rendered;
    },
    RUN_MS,
  );

  it.skipIf(kpt === undefined)(
    "each renders as kpt renders it, or both refuse it",
    async (ctx) => {
      const theirs = await (kpt as Promise<Map<string, Rendered>>);
      ctx.skip(ours === undefined, "porchlight's renders did not finish");
      const differences: string[] = [];
      const skipped = new Map<string, number>();
      for (const job of jobs) {
        const shape = leftOut(files[job.index] as string, job.mode);
        if (shape !== undefined) {
          skipped.set(shape, (skipped.get(shape) ?? 0) + 1);
          continue;
        }
        const a = theirs.get(jobKey(job));
        const b = ours?.[job.mode][job.index];
        if (a === undefined || b === undefined) throw new Error(`no outcome for ${jobKey(job)}`);
        const at = `file ${job.index} (${modeName(job.mode)})`;
        const file = shown(files[job.index]);
        if (a.ok && b.ok && a.text !== b.text) {
          const first = firstDifference(a.text ?? "", b.text ?? "");
          differences.push(
            `${at}: ${first}\n  file:       ${file}\n  kpt:        ${shown(a.text)}\n  porchlight: ${shown(b.text)}`,
          );
        } else if (a.ok && !b.ok) {
          differences.push(`${at}: kpt renders, porchlight refuses: ${b.error}\n  file: ${file}`);
        } else if (!a.ok && b.ok) {
          differences.push(`${at}: porchlight renders, kpt refuses: ${a.error}\n  file: ${file}`);
        }
      }
      const left = [...skipped].map(([shape, n]) => `${n} × ${shape}`).join("; ");
      console.log(`seed ${SEED}: ${jobs.length} renders; left out of the comparison with kpt: ${left}`);
      const dump = process.env.PORCHLIGHT_PROPERTY_DUMP;
      if (dump) writeFileSync(dump, differences.join("\n\n"));
      if (differences.length > 0) {
        expect.fail(
          `seed ${SEED}: ${differences.length} of ${jobs.length} renders differ from kpt's (${REPLAY})\n${differences.slice(0, 3).join("\n")}`,
        );
      }
    },
    RUN_MS,
  );
});
