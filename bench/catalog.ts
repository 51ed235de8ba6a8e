import { performance } from "node:perf_hooks";
import { addRevision, parseCatalog, removeRevision, skip } from "../src/catalog/index.js";

const RUNS = 3;

/** A catalog with one package and `n` revisions, each replacing the last in channel stable. */
function catalogOf(n: number): string {
  const lines = ["schema: porchlight.catalog/v1", "packages:", "- name: basens", "  revisions:"];
  for (let i = 1; i <= n; i++) lines.push(`  - {revision: v${i}, commit: abcdef0, time: t}`);
  lines.push("  channels:", "  - name: stable", "    entries:", "    - name: v1");
  for (let i = 2; i <= n; i++) lines.push(`    - {name: v${i}, replaces: v${i - 1}}`);
  return `${lines.join("\n")}\n`;
}

function median(f: () => void): number {
  const times: number[] = [];
  for (let r = 0; r < RUNS; r++) {
    const t = performance.now();
    f();
    times.push(performance.now() - t);
  }
  return times.sort((a, b) => a - b)[Math.floor(RUNS / 2)] as number;
}

/**
 * The catalog edits a user types (`/skip`, `/remove`), and the read every edit starts with, on a channel
 * of 100 to 3,000 revisions: each edit reads the file, checks the rules, and for a removal checks that no
 * revision loses its upgrade path (linear in the channel's edges). Medians of 3, milliseconds.
 */
export function benchCatalogEdits() {
  return [100, 1000, 3000].map((n) => {
    const text = catalogOf(n);
    const middle = `v${Math.floor(n / 2)}`;
    const read = median(() => parseCatalog(text));
    return {
      revisions: n,
      "read+check ms": Math.round(read),
      "skip ms": Math.round(median(() => skip(text, "basens", middle))),
      "remove ms": Math.round(median(() => removeRevision(text, "basens", middle))),
      "add ms": Math.round(
        median(() =>
          addRevision(text, {
            package: "basens",
            revision: `v${n + 1}`,
            commit: "abcdef0",
            time: "t",
            channels: ["stable"],
          }),
        ),
      ),
    };
  });
}
