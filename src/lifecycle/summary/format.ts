import { truncateText } from "../check-run.js";
import { formatRevisionTag } from "../revision-tag.js";
import { cell, code } from "./markdown.js";
import type {
  ChangeKind,
  ImageChange,
  PackageChangeSummary,
  RbacChange,
  ResourceChange,
  ResourceId,
  SummaryInput,
} from "./types.js";

/** GitHub refuses a comment body of 65,536 characters or more. */
const MAX_COMMENT_CHARS = 65_535;
export const SUMMARY_MARKER = "<!-- porchlight:summary -->";
export const SUMMARY_FORMAT_VERSION = 1;

const SIGN: Record<ChangeKind, string> = { added: "+", changed: "~", removed: "−" };

type Detail = "full" | "compact";

/**
 * The proposal's summary comment: what publishing would change, per package. Hidden markers let the bot
 * find it and tell whether it describes the current head (see parseSummary). When the full text would
 * not fit in a comment, resource tables give way to counts, then packages to a note; the images, RBAC
 * and namespace changes are the last to go because reviewers must see them.
 */
export function formatSummary(input: SummaryInput, limit = MAX_COMMENT_CHARS): string {
  const header = [
    SUMMARY_MARKER,
    `<!-- porchlight:summary-meta version=${SUMMARY_FORMAT_VERSION} head=${input.headSha} -->`,
    "## What publishing this proposal changes",
    "",
    "",
  ].join("\n");
  if (input.packages.length === 0) {
    return `${header}No package changes: nothing in this pull request is inside a package.\n`;
  }
  const packages = [...input.packages].sort((a, b) =>
    a.package < b.package ? -1 : a.package > b.package ? 1 : 0,
  );
  // The resource tables alone too long for a comment (a new package of thousands of resources): the
  // full text is not made (its rows sorted, then thrown away).
  const tablesFit = fitsIn(
    limit - header.length,
    packages.flatMap((p) => p.resources),
    (r) => resourceRow(r).length + 1,
  );
  if (tablesFit) {
    const body = `${header}${packages.map((p) => formatPackage(p, "full")).join("\n")}`;
    if (body.length <= limit) return body;
  }
  const compact = packages.map((p) => formatPackage(p, "compact"));
  const body = `${header}${compact.join("\n")}`;
  if (body.length <= limit) return body;
  return fitPackages(header, compact, limit);
}

/** Whether the items' lengths add up to at most `room`: counted until they are over, not further. */
function fitsIn<T>(room: number, items: readonly T[], length: (item: T) => number): boolean {
  let left = room;
  for (const item of items) {
    left -= length(item);
    if (left < 0) return false;
  }
  return true;
}

/** As many compact package sections as fit, then a note naming how many are left out. */
function fitPackages(header: string, sections: readonly string[], limit: number): string {
  let body = header;
  for (const [i, compact] of sections.entries()) {
    const section = `${compact}\n`;
    const rest = sections.length - i;
    const note = `_…and ${rest} more ${rest === 1 ? "package" : "packages"} not shown: this comment has a size limit. The check run lists every change._\n`;
    if (body.length + section.length + note.length > limit) {
      // A first section too large on its own is cut rather than left out: the reviewer sees its start.
      if (i === 0) return truncateText(body + section, limit, "(truncated: this comment has a size limit)");
      return truncateText(body + note, limit, "(truncated: this comment has a size limit)");
    }
    body += section;
  }
  return body;
}

function formatPackage(p: PackageChangeSummary, detail: Detail): string {
  const lines: string[] = [];
  const target =
    p.revision !== undefined
      ? ` → ${code(formatRevisionTag({ package: p.package, revision: p.revision }))}`
      : "";
  lines.push(`### ${code(p.package)}${p.deletion ? " (deleted)" : target}`, "");
  lines.push(countLine(p), "");
  if (detail === "full" && p.resources.length > 0) {
    lines.push("| | Resource | File |", "|---|---|---|");
    for (const r of sortedResources(p)) lines.push(resourceRow(r));
    lines.push("");
  }
  if (p.images.length > 0) lines.push("**Images**", "", ...p.images.map(imageLine), "");
  if (p.rbac.length > 0)
    lines.push("**RBAC** (review who may do what)", "", ...p.rbac.flatMap(rbacLines), "");
  const ns = [
    ...p.namespaces.added.map((n) => `+ ${code(n)}`),
    ...p.namespaces.removed.map((n) => `− ${code(n)}`),
  ];
  if (ns.length > 0) lines.push(`**Namespaces:** ${ns.join(", ")}`, "");
  return lines.join("\n");
}

/** A resource's row of the package's table. */
function resourceRow(r: ResourceChange): string {
  return `| ${SIGN[r.change]} | ${cell(resourceName(r.resource))} | ${r.file ? cell(r.file) : ""} |`;
}

function countLine(p: PackageChangeSummary): string {
  const count = (kind: ChangeKind) => p.resources.filter((r) => r.change === kind).length;
  if (p.notSummarized !== undefined) return `Not compared: ${p.notSummarized}.`;
  if (p.resources.length === 0) return "No resource changes.";
  return `${count("added")} added, ${count("changed")} changed, ${count("removed")} removed`;
}

function sortedResources(p: PackageChangeSummary) {
  const order: Record<ChangeKind, number> = { added: 0, changed: 1, removed: 2 };
  return [...p.resources].sort(
    (a, b) =>
      order[a.change] - order[b.change] || resourceName(a.resource).localeCompare(resourceName(b.resource)),
  );
}

function resourceName(r: ResourceId): string {
  return `${r.kind} ${r.namespace ? `${r.namespace}/` : ""}${r.name}`;
}

function imageLine(i: ImageChange): string {
  const where = `${cell(resourceName(i.resource))}, container ${code(i.container)}`;
  if (i.from && i.to) return `- ${where}: ${code(i.from)} → ${code(i.to)}`;
  if (i.to) return `- ${where}: + ${code(i.to)}`;
  return `- ${where}: − ${code(i.from ?? "")}`;
}

function rbacLines(r: RbacChange): string[] {
  const head = `- ${SIGN[r.change]} ${cell(resourceName(r.resource))}`;
  return [head, ...(r.details ?? []).map((d) => `  - ${cell(d)}`)];
}
