/**
 * The render of a render's output (issue #52: what the render of the bot's commit would need to be
 * skipped). For each package — the bench's generated one (bench/render-package.ts, the five builtins)
 * or the package directories given — renders it whole as the bot's renderer does (KptRenderer, nothing
 * kept between renders), then renders the output, and prints which files the second render changes
 * and, function by function, whether its results on the output are the results it gave on the input
 * (the first pair that differs where not). Where both hold for every function and file, the render of
 * the output could be answered from the first render's; where a function's results differ, the second
 * render's results have to be worked out (by running it, or by a rule the function states and a test
 * holds it to).
 *
 *   npx tsx --conditions=@porchlight/source scripts/render-twice.ts [--resources N] [DIR...]
 */

import { builtinPipeline } from "../bench/render.js";
import { generatePackage } from "../bench/render-package.js";
import { KptRenderer } from "../src/jobs/kpt-renderer/index.js";
import type { RenderFinding, RenderResult } from "../src/jobs/renderer.js";
import { type FileTree, readTree } from "../src/kpt/tree.js";

const USAGE = "usage: render-twice.ts [--resources N] [DIR...]";

async function main(args: readonly string[]): Promise<number> {
  const dirs: string[] = [];
  let resources = 1000;
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string; // i < args.length
    if (a === "--help" || a === "-h") {
      console.log(USAGE);
      return 0;
    }
    if (a === "--resources") {
      resources = Number(args[++i]);
      if (!Number.isInteger(resources) || resources < 1) {
        console.error(`--resources takes a whole number above 0\n${USAGE}`);
        return 2;
      }
    } else if (a.startsWith("-")) {
      console.error(`unknown option ${a}\n${USAGE}`);
      return 2;
    } else dirs.push(a);
  }
  const packages: [string, FileTree][] =
    dirs.length > 0
      ? await Promise.all(dirs.map(async (d): Promise<[string, FileTree]> => [d, await readTree(d)]))
      : [[`generated, ${resources} resources`, generatePackage(resources, builtinPipeline())]];
  let failed = false;
  for (const [name, tree] of packages) {
    // No FileWorkMemo: each render renders every file, as a cold renderer does.
    const renderer = new KptRenderer(undefined, undefined, true, undefined, null);
    const options = { runtimes: ["builtin" as const] };
    const first = await renderer.render(tree, options);
    if (!first.ok) {
      console.log(`${name}: the render failed: ${first.error ?? "the pipeline failed"}`);
      failed = true;
      continue;
    }
    const second = await renderer.render(first.tree, options);
    if (!second.ok) {
      console.log(`${name}: the render of the output failed: ${second.error ?? "the pipeline failed"}`);
      failed = true;
      continue;
    }
    console.log(report(name, first, second));
  }
  return failed ? 1 : 0;
}

function report(name: string, first: RenderResult, second: RenderResult): string {
  const changed = [...first.tree].filter(([path, bytes]) => !second.tree.get(path)?.equals(bytes));
  const gone = [...second.tree.keys()].filter((p) => !first.tree.has(p));
  const some = changed.slice(0, 3).map(([p]) => p);
  if (changed.length > 3) some.push("…");
  const added = gone.length > 0 ? `, adds ${gone.length}` : "";
  const which = some.length > 0 ? ` (${some.join(", ")})` : "";
  const lines = [
    `${name}: ${first.tree.size} files; the render of the output changes ${changed.length}${added}${which}`,
  ];
  const a = byFunction(first.findings);
  const b = byFunction(second.findings);
  for (const fn of new Set([...a.keys(), ...b.keys()])) {
    const x = a.get(fn) ?? [];
    const y = b.get(fn) ?? [];
    const at = x.findIndex((m, i) => m !== y[i]);
    const same = x.length === y.length && at < 0;
    lines.push(
      same
        ? `  ${fn}: the same ${x.length} results`
        : `  ${fn}: ${x.length} results on the input, ${y.length} on the output; first that differs: ${JSON.stringify(x[at < 0 ? y.length : at] ?? null)} → ${JSON.stringify(y[at < 0 ? x.length : at] ?? null)}`,
    );
  }
  return lines.join("\n");
}

/** Each function's results as text (severity, place, message), in order. */
function byFunction(findings: readonly RenderFinding[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const f of findings) {
    const text = `${f.severity} ${f.file ?? ""}:${f.line ?? ""} ${f.message}`;
    const list = out.get(f.function);
    if (list) list.push(text);
    else out.set(f.function, [text]);
  }
  return out;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    console.error(e instanceof Error ? e.message : String(e));
    process.exitCode = 1;
  },
);
