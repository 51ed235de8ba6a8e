import { createHash } from "node:crypto";
import { capped, cell, code, fitToBudget } from "./markdown.js";
import type { FanoutAction, FanoutPlan } from "./plan-types.js";
import { formatProblem, type VariantProblem } from "./problem.js";
import type { RolloutStatus } from "./rollout.js";
import { renderRollouts } from "./rollout-dashboard.js";
import { isSourceUpstream, type PackageVariant } from "./schema.js";
import { shortDigest, sourceName, upstreamLabel, upstreamVersion } from "./source-upstream.js";
import { formatRefusalMarker } from "./upstream-refusal.js";

/** Marks the dashboard issue of an upstream repository, so the bot finds and edits it in place. */
export const DASHBOARD_MARKER = "<!-- porchlight:dashboard -->";
export const DASHBOARD_TITLE = "porchlight fan-out dashboard";

export interface DashboardInput {
  variants: readonly PackageVariant[];
  plan: FanoutPlan;
  /** Problems from the variant files, listed with file and line. */
  problems?: readonly VariantProblem[];
  /** Link for a pull request in a downstream repository; plain `#n` when absent. */
  pullRequestLink?: (repo: string, number: number) => string;
  /** The downstream package's own latest published revision (`v2` of its tag `<package>/v2`), if any. */
  published?: (repo: string, pkg: string) => string | undefined;
  /** The progressive rollouts (per upstream package), when the management repository has one. */
  rollouts?: readonly RolloutStatus[];
  /**
   * Repositories of the app's other installations (`owner/name`) holding a downstream of these variants,
   * kept in a hidden marker for the next run (see formatDownstreamsMarker).
   */
  elsewhere?: readonly string[];
}

const DOWNSTREAMS_MARKER = /<!-- porchlight:downstreams ([^>]*?) -->/;

/**
 * The hidden marker listing the repositories of the app's other installations where downstreams of the
 * management repository's variants live: `<!-- porchlight:downstreams other/deploy-dev third/x -->`. A
 * run lists its own installation's repositories, but reaches another installation's only by name; the
 * marker names them after the variant that named them is gone, so that its removal still proposes
 * deleting the downstream there. Sorted and deduplicated: the same set writes the same text.
 */
export function formatDownstreamsMarker(repos: readonly string[]): string {
  const list = [...new Set(repos.filter((r) => /^[\w.-]+\/[\w.-]+$/.test(r)))].sort();
  return list.length > 0 ? `<!-- porchlight:downstreams ${list.join(" ")} -->` : "";
}

/** The repositories a dashboard body's downstreams marker names (none when there is no marker). */
export function parseDownstreamsMarker(body: string | null | undefined): string[] {
  const m = DOWNSTREAMS_MARKER.exec(body ?? "");
  return m?.[1] ? m[1].split(/\s+/).filter((r) => /^[\w.-]+\/[\w.-]+$/.test(r)) : [];
}

/** Why an open proposal is not published yet, as the dashboard says it. */
const HELD = {
  approval: "⏳ waiting for approval",
  conflicts: "⚠️ held: conflicts to resolve",
  edited: "✋ held: commits by others",
} as const;

const STATE: Record<FanoutAction["kind"], string> = {
  clone: "🆕 clone pending",
  update: "🔄 update pending",
  nothing: "✅ up to date",
  skip: "⚠️ problem",
  "deletion-proposal": "🗑️ deletion pending",
  orphan: "🔓 release pending",
  discard: "🗑️ proposal discarded",
};

/**
 * The state column: the state, then why — once: a reason that starts with the state's own words
 * (`up to date at v2` under `✅ up to date`) is not said twice.
 */
function stateCell(state: string, reason: string): string {
  const words = state.replace(/^\S+\s+/, "");
  const icon = state.slice(0, state.length - words.length);
  if (reason === "") return state;
  return reason.startsWith(words) ? `${icon}${cell(reason)}` : `${state}: ${cell(reason)}`;
}

/** What a variant's row of the dashboard says, read back from the issue body. */
export interface DashboardRow {
  /** The revision (or digest, shortened) the row's step was to bring; absent where the row says `—`. */
  target?: string;
  /** The state cell as written: `✅ up to date`, `⚠️ problem: …`. */
  state: string;
  /** Why the variant is left as it was, when the row is a problem. */
  problem?: string;
}

/**
 * The row of variant `name` in a dashboard body, as renderDashboard wrote it (cells split at the pipes
 * `cell` did not escape); undefined when the body has no row for it. How a reader that is not fan-out
 * (Porch's API: a PackageVariant's status) learns what fan-out's last run did with a variant.
 */
export function parseDashboardRow(body: string | null | undefined, name: string): DashboardRow | undefined {
  const variant = code(name);
  for (const line of (body ?? "").split("\n")) {
    if (!line.startsWith("| ") || !line.endsWith(" |")) continue;
    const cells = line
      .slice(1, -1)
      .split(/(?<!\\)\|/)
      .map((c) => c.trim().replace(/\\\|/g, "|"));
    if (cells.length !== 8 || cells[1] !== variant) continue;
    const [target = "—", , state = ""] = cells.slice(5);
    const problem = state.startsWith(`${STATE.skip}: `)
      ? state.slice(STATE.skip.length + 2)
      : state.startsWith(STATE.skip)
        ? state.replace(/^\S+\s+/, "")
        : undefined;
    return { ...(target !== "—" ? { target } : {}), state, ...(problem !== undefined ? { problem } : {}) };
  }
  return undefined;
}

/** True when an issue body is porchlight's dashboard. */
export function isDashboardBody(body: string | null | undefined): boolean {
  return (body ?? "").includes(DASHBOARD_MARKER);
}

/**
 * The dashboard issue body: one row per downstream (its own published revision, the upstream revision it
 * carries, the target, the open proposal and why it is held — waiting for approval, conflicts, commits by
 * others, closed —, paused or problem, and why), a Mermaid graph of upstream → downstream packages, and the
 * problems in the variant files. Pure: the same plan renders the same text, so an unchanged dashboard is
 * not edited.
 */
export function renderDashboard(input: DashboardInput): string {
  const byName = new Map(input.variants.map((v) => [v.metadata.name, v]));
  const rows = [...input.plan.actions].sort(
    (a, b) => downstreamOf(a).localeCompare(downstreamOf(b)) || a.variant.localeCompare(b.variant),
  );
  return fitToBudget((cap) => {
    const marker = formatDownstreamsMarker(input.elsewhere ?? []);
    // each variant refused its upstream, for Porch's API (parseRefusals): hidden, and never capped
    const refused = (input.problems ?? []).flatMap((p) =>
      p.refusal && p.variant ? [formatRefusalMarker(p.variant, p.refusal)] : [],
    );
    const lines = [
      DASHBOARD_MARKER,
      ...(marker ? [marker] : []),
      ...refused,
      "",
      "Every downstream of this repository's packages, as fan-out last saw it.",
      "",
      ...renderRollouts(input.rollouts ?? [], (repo, n) => input.pullRequestLink?.(repo, n) ?? `#${n}`),
    ];
    lines.push(
      "| Downstream | Variant | Upstream | Published | Upstream revision | Target | Pull request | State |",
      "| --- | --- | --- | --- | --- | --- | --- | --- |",
    );
    lines.push(
      ...capped(
        rows,
        cap,
        (a) => {
          const v = byName.get(a.variant);
          const upstream = v ? upstreamCell(v) : "—";
          const deployed = shortDigest(
            "deployed" in a && a.deployed ? a.deployed : a.kind === "update" ? a.from : "—",
          );
          const target = shortDigest(
            a.kind === "clone" || a.kind === "update" ? a.to : "target" in a && a.target ? a.target : "—",
          );
          const prNumber = "pullRequest" in a ? a.pullRequest : undefined;
          const repo = "downstream" in a && a.downstream ? a.downstream.repo : "";
          const published =
            ("downstream" in a && a.downstream && input.published?.(repo, a.downstream.package)) || "—";
          const pr = prNumber ? (input.pullRequestLink?.(repo, prNumber) ?? `#${prNumber}`) : "—";
          const conflicts =
            "conflicts" in a && a.conflicts
              ? ` ⚠️ ${a.conflicts} conflict${a.conflicts === 1 ? "" : "s"}`
              : "";
          const state =
            a.kind === "skip" && a.why === "paused"
              ? "⏸️ paused"
              : a.kind === "skip" && a.why === "rollout"
                ? "⏳ rollout"
                : a.kind === "skip" && a.why === "declined"
                  ? `⏭️ skipped: #${prNumber} closed`
                  : a.kind === "nothing" && prNumber
                    ? a.held
                      ? HELD[a.held]
                      : "🔄 pull request open"
                    : STATE[a.kind];
          return `| ${cell(downstreamOf(a) || "—")} | ${code(a.variant)} | ${cell(upstream.trim())} | ${published} | ${deployed} | ${target} | ${pr}${conflicts} | ${stateCell(state, a.reason)} |`;
        },
        (n) => `| … and ${n} more | | | | | | | |`,
      ),
    );
    lines.push("", "```mermaid", ...mermaidGraph(input.variants, cap), "```");
    if (input.problems?.length) {
      lines.push("", `### Problems in variant files (${input.problems.length})`, "");
      lines.push(
        ...capped(
          input.problems,
          cap,
          (p) => `- ${cell(formatProblem(p))}`,
          (n) => `- … and ${n} more`,
        ),
      );
    }
    return `${lines.join("\n")}\n`;
  });
}

/** `repo/package (channel)` or `repo/package v3`; for an OCI or tarball upstream, the reference itself. */
function upstreamCell(v: PackageVariant): string {
  const up = v.spec.upstream;
  if (isSourceUpstream(up)) return upstreamLabel(up);
  return `${up.repo}/${up.package} ${up.channel ? `(${up.channel})` : (up.revision ?? "")}`;
}

function downstreamOf(a: FanoutAction): string {
  return "downstream" in a && a.downstream ? `${a.downstream.repo}/${a.downstream.package}` : "";
}

function nodeId(prefix: string, key: string): string {
  return `${prefix}${createHash("sha1").update(key).digest("hex").slice(0, 8)}`;
}

function label(text: string): string {
  return `"${text.replace(/"/g, "#quot;")}"`;
}

function mermaidGraph(variants: readonly PackageVariant[], cap: number): string[] {
  const lines = ["graph LR"];
  const nodes = new Map<string, string>();
  const edges: string[] = [];
  for (const v of variants) {
    const up = isSourceUpstream(v.spec.upstream)
      ? sourceName(v.spec.upstream)
      : `${v.spec.upstream.repo}/${v.spec.upstream.package}`;
    const down = `${v.spec.downstream.repo}/${v.spec.downstream.package}`;
    const u = nodeId("u", up);
    const d = nodeId("d", down);
    nodes.set(u, `  ${u}[${label(up)}]`);
    nodes.set(d, `  ${d}[${label(down)}]`);
    const via = upstreamVersion(v.spec.upstream);
    edges.push(`  ${u} -->|${label(via + (v.spec.paused ? " paused" : ""))}| ${d}`);
  }
  const shown = Number.isFinite(cap) ? edges.slice(0, cap * 4) : edges;
  return [...lines, ...nodes.values(), ...shown];
}
