import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { classify, explain, type Verdict } from "../test/merge/gen/compare.js";
import { describeCase, generateCase } from "../test/merge/gen/triples.js";
import { kptAvailable, runBatch } from "../test/merge/kpt-oracle.js";

/**
 * The large differential run of `pkg update` against kpt: `npm run diff:update -- [cases] [first seed]
 * [batch]`. Writes each case that differs (the triple, and kpt's output beside ours) to
 * $PORCHLIGHT_DIFF_OUT (default /tmp/porchlight-diff-update) and prints the figures.
 */
const [cases = 3000, first = 1, batch = 250] = process.argv.slice(2).map(Number);
if (!kptAvailable()) {
  console.log("kpt not found on PATH: the differential run against kpt is skipped");
  process.exit(0);
}
const outDir = process.env.PORCHLIGHT_DIFF_OUT ?? "/tmp/porchlight-diff-update";
mkdirSync(outDir, { recursive: true });
const counts: Record<Verdict, number> = { identical: 0, format: 0, different: 0, error: 0 };
const failing: number[] = [];
for (let start = first; start < first + cases; start += batch) {
  const seeds = Array.from({ length: Math.min(batch, first + cases - start) }, (_, i) => start + i);
  const results = await runBatch(seeds.map(generateCase));
  results.forEach((r, i) => {
    const seed = seeds[i]!;
    const v = classify(r);
    counts[v]++;
    if (v === "identical") return;
    failing.push(seed);
    writeFileSync(
      join(outDir, `${v}-${seed}.txt`),
      `seed ${seed}: ${v}\n${r.error ?? explain(r.kpt, r.porchlight)}\n\n${describeCase(seed)}`,
    );
  });
  console.log(`seeds ${seeds[0]}..${seeds.at(-1)}: ${JSON.stringify(counts)}`);
}
console.log(
  `${cases} cases: ${counts.identical} identical, ${counts.format} differ only in formatting (src/kpt/format.ts), ${counts.different} different, ${counts.error} refused`,
);
if (failing.length > 0) console.log(`details in ${outDir}; first seeds: ${failing.slice(0, 20).join(" ")}`);
process.exit(counts.different + counts.error > 0 ? 1 : 0);
