/**
 * `npm run differential -- update KPT_GIT_DIR [KUSTOMIZE_GIT_DIR] [--batch N] [--list]`: kpt's merge
 * tables (kpt's merge3 and kptfileutil tests at v1.0.0-beta.56, and, given a kustomize repository,
 * kyaml v0.15.0's merge3 tables) each run as a `pkg update` by kpt and by porchlight (test/merge/
 * kpt-tables.ts), the results compared byte for byte; a summary by kind, and for each case that differs
 * the lines that differ.
 */
import { classify, explain } from "../test/merge/gen/compare.js";
import { kptAvailable, runBatch } from "../test/merge/kpt-oracle.js";
import { readKptTables, type TableCase, tableTriple, unrunnable } from "../test/merge/kpt-tables.js";

type Kind =
  | "identical"
  | "bytes differ"
  | "both refuse"
  | "kpt updates, porchlight refuses"
  | "porchlight updates, kpt refuses"
  | "not run"
  | "failed before the update";

interface Row {
  c: TableCase;
  kind: Kind;
  detail?: string;
}

const REFUSAL: Record<string, Kind> = {
  both: "both refuse",
  kpt: "porchlight updates, kpt refuses",
  porchlight: "kpt updates, porchlight refuses",
};

async function runCases(cases: readonly TableCase[], batch: number): Promise<Row[]> {
  const rows: Row[] = [];
  for (let start = 0; start < cases.length; start += batch) {
    const part = cases.slice(start, start + batch);
    // no reformatting by kpt: kyaml's fragments (no apiVersion) are no resources to `kpt fn eval`
    const results = await runBatch(part.map(tableTriple), false);
    results.forEach((r, i) => {
      const c = part[i] as TableCase;
      if (r.error) {
        rows.push({
          c,
          kind: r.refusedBy ? (REFUSAL[r.refusedBy] ?? "both refuse") : "failed before the update",
          detail: r.error.trim(),
        });
        return;
      }
      const same = classify(r) === "identical";
      rows.push({
        c,
        kind: same ? "identical" : "bytes differ",
        detail: same ? undefined : explain(r.kpt, r.porchlight),
      });
    });
    process.stderr.write(`\rupdate: ${Math.min(start + batch, cases.length)}/${cases.length}`);
  }
  process.stderr.write("\n");
  return rows;
}

export async function updateMain(args: readonly string[]): Promise<number> {
  const opt = (name: string) => {
    const i = args.indexOf(`--${name}`);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const [kptGit, kustomizeGit] = args.filter((a, i) => !a.startsWith("--") && !args[i - 1]?.startsWith("--"));
  if (!kptGit) {
    process.stderr.write(
      "usage: npm run differential -- update KPT_GIT_DIR [KUSTOMIZE_GIT_DIR] [--batch N] [--list]\n",
    );
    return 2;
  }
  if (!kptAvailable()) {
    process.stderr.write("kpt is not installed: nothing to compare with\n");
    return 0;
  }
  const all = readKptTables(kptGit, kustomizeGit);
  const skipped: Row[] = all.flatMap((c) => {
    const why = unrunnable(c);
    return why ? [{ c, kind: "not run" as const, detail: why }] : [];
  });
  const rows = [
    ...(await runCases(
      all.filter((c) => !unrunnable(c)),
      Number(opt("batch") ?? 40),
    )),
    ...skipped,
  ];
  const bySource = new Map<string, number>();
  for (const r of rows) bySource.set(r.c.source, (bySource.get(r.c.source) ?? 0) + 1);
  process.stdout.write(`update: ${rows.length} cases\n`);
  for (const [s, n] of bySource) process.stdout.write(`  ${s}: ${n}\n`);
  const byKind = new Map<Kind, Row[]>();
  for (const r of rows) byKind.set(r.kind, [...(byKind.get(r.kind) ?? []), r]);
  let failures = 0;
  for (const [kind, list] of [...byKind].sort((a, b) => b[1].length - a[1].length)) {
    process.stdout.write(`  ${kind}: ${list.length}\n`);
    if (kind === "identical" || kind === "both refuse") continue;
    if (kind !== "not run") failures += list.length;
    for (const r of list.slice(0, args.includes("--list") ? list.length : 5)) {
      process.stdout.write(`    ${r.c.source} — ${r.c.name}\n`);
      if (r.detail) process.stdout.write(`${r.detail.replace(/^/gm, "      ")}\n`);
    }
  }
  return failures === 0 ? 0 : 1;
}
