import { type PackageRevision, revisionName } from "./discover.js";

const COLUMNS = [
  "NAME",
  "PACKAGE",
  "WORKSPACENAME",
  "REVISION",
  "LATEST",
  "LIFECYCLE",
  "REPOSITORY",
] as const;

/**
 * Package revisions as `porchctl rpkg get` prints them: the same columns, padded with spaces; each in
 * `repository` (its name, or a revision's repository's name when they come from several). `wide`
 * adds columns after them (as kubectl's `-o wide` does), named by `wide.columns`, each revision's
 * values from `wide.values`.
 */
export function formatRevisionTable(
  repository: string | ((rev: PackageRevision) => string),
  revisions: readonly PackageRevision[],
  wide?: { columns: readonly string[]; values: (rev: PackageRevision) => readonly string[] },
): string {
  const columns = [...COLUMNS, ...(wide?.columns ?? [])];
  const repoOf = typeof repository === "string" ? () => repository : repository;
  const rows = revisions.map((r) => [
    revisionName(repoOf(r), r),
    r.package,
    r.workspace,
    String(r.revision),
    String(r.latest),
    r.lifecycle,
    repoOf(r),
    ...(wide?.values(r) ?? []),
  ]);
  const all = [columns, ...rows];
  const widths = columns.map((_, i) => Math.max(...all.map((row) => (row[i] as string).length)));
  return `${all.map((row) => row.map((c, i) => (i === row.length - 1 ? c : c.padEnd((widths[i] as number) + 3))).join("")).join("\n")}\n`;
}
