import { z } from "zod";
import { DELETION_LABEL } from "../lifecycle/labels.js";
import { capped, code, fitToBudget, markerJson } from "./markdown.js";
import type { VariantChange } from "./mutations.js";
import type { OpenPullRequest, PackageRef } from "./plan-types.js";
import { shortDigest } from "./source-upstream.js";

const UPDATE_LABEL = "porchlight/update";
const AUTOMATED_LABEL = "porchlight/automated";
const MARKER = "porchlight:variant";
const MARKER_RE = /<!-- porchlight:variant (\{.*?\}) -->/;

const KINDS = ["clone", "update", "deletion", "orphan"] as const;
export type VariantPullRequestKind = (typeof KINDS)[number];

/** What a fan-out pull request says: the variant, the revisions, what merged, and what conflicts remain. */
export interface VariantPullRequest {
  kind: VariantPullRequestKind;
  variant: string;
  /** The set that generated the variant, and the file declaring it. */
  set?: string;
  file?: string;
  upstream?: PackageRef & { channel?: string };
  downstream: PackageRef;
  from?: string;
  to?: string;
  toCommit?: string;
  /** An OCI or tarball upstream: the reference the variant declares, and the digest `to` resolved it to. */
  source?: { source: string; digest: string };
  /** The repository holding the variant's file (`owner/name`); recorded for a source upstream. */
  management?: string;
  specHash?: string;
  merged?: readonly { file: string; change: "added" | "modified" | "removed" }[];
  conflicts?: readonly { file: string; startLine: number; endLine: number; detail?: string }[];
  variantChanges?: readonly VariantChange[];
  /** Fields where upstream's new value replaced a local edit: `file` and dotted `field`, with the resource. */
  replacedLocal?: readonly { file: string; field: string; resource?: string }[];
}

/** The hidden marker data: enough to plan the next step without reading anything else. */
export interface VariantPullRequestMarker {
  v: 1;
  kind: VariantPullRequestKind;
  variant: string;
  downstream: PackageRef;
  upstream?: PackageRef;
  /** The oci:// or https:// reference of an OCI or tarball upstream (`from` and `to` are then digests). */
  source?: string;
  /** The repository holding the variant's file (`owner/name`), for a source upstream: a reopened pull request resumes there. */
  management?: string;
  from?: string;
  to?: string;
  specHash?: string;
  conflicts: number;
}

const packageRef = z.object({ repo: z.string(), package: z.string() });

/** The marker as read back from a pull request body, which anyone with write access may have edited. */
const markerSchema = z.object({
  v: z.literal(1),
  kind: z.enum(KINDS),
  variant: z.string(),
  downstream: packageRef,
  upstream: packageRef.optional(),
  source: z.string().optional(),
  management: z.string().optional(),
  from: z.string().optional(),
  to: z.string().optional(),
  specHash: z.string().optional(),
  conflicts: z.number().int().nonnegative().default(0),
}) satisfies z.ZodType<VariantPullRequestMarker, unknown>;

function formatVariantPullRequestTitle(
  pr: Pick<VariantPullRequest, "kind" | "downstream" | "upstream" | "from" | "to" | "variant" | "source">,
): string {
  const pkg = pr.downstream.package;
  if (pr.source) return sourceTitle({ ...pr, source: pr.source });
  const up = pr.upstream ? `${pr.upstream.repo}/${pr.upstream.package}` : "upstream";
  switch (pr.kind) {
    case "clone":
      return `Clone ${up} ${pr.to} into ${pkg}`;
    case "update":
      return pr.from === pr.to
        ? `Re-apply variant ${pr.variant} to ${pkg} at ${pr.to}`
        : `Update ${pkg} from ${pr.from} to ${pr.to} (${up})`;
    case "deletion":
      return `Delete ${pkg} (variant ${pr.variant} was removed)`;
    case "orphan":
      return `Release ${pkg} from variant ${pr.variant}`;
  }
}

/** `Clone oci://…:tag (sha256:…) into pkg`, `Update pkg to oci://…:tag (sha256:… → sha256:…)`; tarballs alike. */
function sourceTitle(
  pr: Pick<VariantPullRequest, "kind" | "downstream" | "from" | "to" | "variant"> & {
    source: NonNullable<VariantPullRequest["source"]>;
  },
): string {
  const pkg = pr.downstream.package;
  const to = shortDigest(pr.source.digest);
  if (pr.kind === "clone") return `Clone ${pr.source.source} (${to}) into ${pkg}`;
  if (pr.from === pr.to) return `Re-apply variant ${pr.variant} to ${pkg} at ${pr.source.source} (${to})`;
  return `Update ${pkg} to ${pr.source.source} (${shortDigest(pr.from ?? "")} → ${to})`;
}

/** Reads a fan-out title back: which package, and for updates the revisions. */
export function parseVariantPullRequestTitle(
  title: string,
): { kind: VariantPullRequestKind; package: string; from?: string; to?: string } | undefined {
  let m = /^Clone (\S+) (v\d+) into (\S+)$/.exec(title);
  if (m) return { kind: "clone", package: m[3] as string, to: m[2] as string };
  m = /^Update (\S+) from (v\d+) to (v\d+) \(\S+\)$/.exec(title);
  if (m) return { kind: "update", package: m[1] as string, from: m[2] as string, to: m[3] as string };
  m = /^Re-apply variant \S+ to (\S+) at (v\d+)$/.exec(title);
  if (m) return { kind: "update", package: m[1] as string, from: m[2] as string, to: m[2] as string };
  m = /^Delete (\S+) \(variant \S+ was removed\)$/.exec(title);
  if (m) return { kind: "deletion", package: m[1] as string };
  m = /^Release (\S+) from variant \S+$/.exec(title);
  if (m) return { kind: "orphan", package: m[1] as string };
  return undefined;
}

export function variantPullRequestLabels(kind: VariantPullRequestKind): string[] {
  if (kind === "deletion") return [DELETION_LABEL, AUTOMATED_LABEL];
  if (kind === "orphan") return [AUTOMATED_LABEL];
  return [UPDATE_LABEL, AUTOMATED_LABEL];
}

/** Title, body (under GitHub's 65,536 characters) and labels of a fan-out pull request. */
export function formatVariantPullRequest(pr: VariantPullRequest): {
  title: string;
  body: string;
  labels: string[];
} {
  const marker: VariantPullRequestMarker = {
    v: 1,
    kind: pr.kind,
    variant: pr.variant,
    downstream: pr.downstream,
    ...(pr.upstream && !pr.source
      ? { upstream: { repo: pr.upstream.repo, package: pr.upstream.package } }
      : {}),
    ...(pr.source ? { source: pr.source.source } : {}),
    ...(pr.management ? { management: pr.management } : {}),
    ...(pr.from ? { from: pr.from } : {}),
    ...(pr.to ? { to: pr.to } : {}),
    ...(pr.specHash ? { specHash: pr.specHash } : {}),
    conflicts: pr.conflicts?.length ?? 0,
  };
  const body = fitToBudget((cap) => renderBody(pr, `<!-- ${MARKER} ${markerJson(marker)} -->`, cap));
  return { title: formatVariantPullRequestTitle(pr), body, labels: variantPullRequestLabels(pr.kind) };
}

/** The first line of an OCI upstream's clone or update: the image as declared and the digests. */
function sourceSummary(pr: VariantPullRequest, down: string): string | undefined {
  const oci = pr.source;
  if (!oci || (pr.kind !== "clone" && pr.kind !== "update")) return undefined;
  const image = code(oci.source);
  if (!oci.source.startsWith("oci://")) {
    if (pr.kind === "clone")
      return `Creates ${down} from the tarball ${image}, whose bytes have sha256 ${code(oci.digest)}.`;
    if (pr.from === pr.to)
      return `Re-applies variant ${code(pr.variant)} to ${down}, still on ${image} at ${code(oci.digest)}.`;
    return `Updates ${down} to ${image}, whose content is now ${code(oci.digest)} (it was ${code(pr.from ?? "")}), merging the tarball's changes into the downstream's own edits (kpt's resource-merge).`;
  }
  if (pr.kind === "clone")
    return `Creates ${down} from the OCI image ${image}, at digest ${code(oci.digest)}.`;
  if (pr.from === pr.to)
    return `Re-applies variant ${code(pr.variant)} to ${down}, still on ${image} at ${code(oci.digest)}.`;
  return `Updates ${down} to ${image}, which now resolves to ${code(oci.digest)} (it was ${code(pr.from ?? "")}), merging the image's changes into the downstream's own edits (kpt's resource-merge).`;
}

function renderBody(pr: VariantPullRequest, marker: string, cap: number): string {
  const lines: string[] = [marker];
  const down = `${code(pr.downstream.package)} in ${code(pr.downstream.repo)}`;
  lines.push(sourceSummary(pr, down) ?? kindSummary(pr, down));
  const origin = [
    pr.file ? `declared in ${code(pr.file)}` : "",
    pr.set ? `generated by PackageVariantSet ${code(pr.set)}` : "",
  ]
    .filter(Boolean)
    .join(", ");
  if (origin) lines.push("", `Variant ${code(pr.variant)}: ${origin}.`);
  lines.push(...changeSections(pr, cap));
  lines.push(
    "",
    "---",
    "<sub>Opened by porchlight fan-out. It keeps this pull request up to date with the variant and the upstream; commits pushed here by others are never overwritten.</sub>",
  );
  return `${lines.join("\n")}\n`;
}

/** The first line of a pull request whose upstream is a package (sourceSummary's for an image or tarball). */
function kindSummary(pr: VariantPullRequest, down: string): string {
  const up = pr.upstream ? `${code(pr.upstream.package)} of ${code(pr.upstream.repo)}` : "the upstream";
  const channel = pr.upstream?.channel ? ` (head of channel ${code(pr.upstream.channel)})` : "";
  const commit = pr.toCommit ? ` at ${pr.toCommit.slice(0, 12)}` : "";
  switch (pr.kind) {
    case "clone":
      return `Creates ${down} from ${up} **${pr.to}**${channel}${commit}.`;
    case "update":
      return pr.from === pr.to
        ? `Re-applies variant ${code(pr.variant)} to ${down}, still on ${up} **${pr.to}**.`
        : `Updates ${down} from ${up} **${pr.from}** to **${pr.to}**${channel}${commit}, merging upstream changes into the downstream's own edits (kpt's resource-merge).`;
    case "deletion":
      return `Variant ${code(pr.variant)} was removed and its deletionPolicy is \`delete\`: this deletes ${down}. Merge to delete it; close to keep it.`;
    case "orphan":
      return `Variant ${code(pr.variant)} was removed and its deletionPolicy is \`orphan\`: ${down} stays, and this removes porchlight's annotations so no variant manages it.`;
  }
}

/** The sections on what the merge did: conflicts, files merged, local edits replaced, variant changes. */
function changeSections(pr: VariantPullRequest, cap: number): string[] {
  return [
    ...section(
      pr.conflicts,
      cap,
      (n) => [
        "",
        `### ⚠️ Conflicts (${n})`,
        "",
        "Upstream and downstream changed the same fields; resolve these before merging:",
        "",
      ],
      (c) =>
        `- ${code(c.file)} line${c.startLine === c.endLine ? ` ${c.startLine}` : `s ${c.startLine}–${c.endLine}`}${c.detail ? `: ${c.detail}` : ""}`,
      (n) => `- … and ${n} more`,
    ),
    ...section(
      pr.merged,
      cap,
      (n) => [
        "",
        `### What merged (${n} file${n === 1 ? "" : "s"})`,
        "",
        "| File | Change |",
        "| --- | --- |",
      ],
      (m) => `| ${code(m.file)} | ${m.change} |`,
      (n) => `| … and ${n} more | |`,
    ),
    ...section(
      pr.replacedLocal,
      cap,
      (n) => [
        "",
        `### Local edits replaced by upstream (${n})`,
        "",
        "Upstream changed these fields too, and its value replaced the downstream's own (kpt's resource-merge); check them before merging:",
        "",
      ],
      (r) => `- ${code(`${r.file}: ${r.field}`)}${r.resource ? ` (${r.resource})` : ""}`,
      (n) => `- … and ${n} more`,
    ),
    ...section(
      pr.variantChanges,
      cap,
      () => ["", "### Variant changes", ""],
      (c) => `- ${code(c.file)}: ${c.summary}`,
      (n) => `- … and ${n} more`,
    ),
  ];
}

/** A section: its heading (given the number of items), then the items, `cap` of them at most; none without items. */
function section<T>(
  items: readonly T[] | undefined,
  cap: number,
  heading: (n: number) => string[],
  line: (item: T) => string,
  more: (n: number) => string,
): string[] {
  return items?.length ? [...heading(items.length), ...capped(items, cap, line, more)] : [];
}

/** Reads the hidden marker of a fan-out pull request body, or undefined if it has none. */
export function parseVariantPullRequestBody(
  body: string | null | undefined,
): VariantPullRequestMarker | undefined {
  const json = MARKER_RE.exec(body ?? "")?.[1];
  if (json === undefined) return undefined;
  try {
    const marker = markerSchema.safeParse(JSON.parse(json));
    return marker.success ? marker.data : undefined;
  } catch {
    return undefined;
  }
}

/** The planner's view of an open fan-out pull request, from its number and body. */
export function openPullRequestFromBody(
  number: number,
  body: string | null | undefined,
  extra: Pick<OpenPullRequest, "headSha" | "editedByOthers" | "draft"> = {},
): OpenPullRequest | undefined {
  const marker = parseVariantPullRequestBody(body);
  if (!marker) return undefined;
  return {
    number,
    kind: marker.kind === "clone" ? "update" : marker.kind,
    ...(marker.to ? { targetRevision: marker.to } : {}),
    ...(marker.specHash ? { specHash: marker.specHash } : {}),
    ...(marker.conflicts ? { conflicts: marker.conflicts } : {}),
    ...extra,
  };
}
