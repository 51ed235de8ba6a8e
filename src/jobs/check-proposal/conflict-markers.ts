import type { FileTree } from "../../kpt/tree.js";
import { conflictMarkers } from "../../merge/index.js";
import type { PackageCheck } from "./package-check.js";

/**
 * A package file holding conflict markers (a fan-out update's 3-way merge left them for a person, or
 * anyone pushed them): the proposal fails, naming every file and line, whoever pushed it, so markers
 * never reach a published revision. Undefined when the package has none.
 */
export function conflictMarkerCheck(pkg: string, tree: FileTree): PackageCheck | undefined {
  const regions = conflictMarkers(tree);
  if (regions.length === 0) return undefined;
  const lines = (r: { startLine: number; endLine: number }) =>
    r.startLine === r.endLine ? `line ${r.startLine}` : `lines ${r.startLine}–${r.endLine}`;
  const files = [...new Set(regions.map((r) => r.file))];
  const where = files
    .map(
      (f) =>
        `\`${pkg}/${f}\` ${regions
          .filter((r) => r.file === f)
          .map(lines)
          .join(", ")}`,
    )
    .join("; ");
  return {
    pkg,
    ok: false,
    line: `\`${pkg}\`: unresolved conflict markers in ${where}; resolve them (keep the lines you want, delete the <<<<<<< ======= >>>>>>> lines) and push`,
    annotations: regions.map((r) => ({
      path: `${pkg}/${r.file}`,
      start_line: r.startLine,
      end_line: r.endLine,
      annotation_level: "failure" as const,
      title: "Unresolved conflict",
      message: `Conflict markers (${lines(r)}): upstream and local both changed this text; resolve it before merging.`,
    })),
  };
}
