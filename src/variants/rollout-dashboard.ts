import { createHash } from "node:crypto";
import { cell } from "./markdown.js";
import type { MemberState, RolloutStatus, StepState } from "./rollout.js";

const STEP: Record<StepState, string> = {
  done: "✅ done",
  rolling: "🔄 rolling out",
  soaking: "⏲️ soaking",
  gated: "🚧 manual gate",
  waiting: "⏳ waiting",
  failed: "❌ failed",
  held: "✋ held",
};

const MEMBER: Record<MemberState, string> = {
  deployed: "✅ deployed",
  verifying: "🔎 verifying",
  proposed: "🔄 pull request open",
  opening: "🆕 opening",
  waiting: "⏳ waiting",
  limited: "🚦 held back by a limit",
  failed: "❌ failed",
  blocked: "⚠️ problem",
  skipped: "⏭️ skipped",
};

function id(prefix: string, key: string): string {
  return `${prefix}${createHash("sha1").update(key).digest("hex").slice(0, 8)}`;
}

function label(text: string): string {
  return `"${text.replace(/"/g, "#quot;")}"`;
}

/**
 * The rollout part of the dashboard, per upstream package: where it stands (stopped where and why), a
 * Mermaid graph of its steps (one box per step holding each downstream with its state), and the pull
 * requests held back by a limit. Pure: the same status renders the same text.
 */
export function renderRollouts(
  rollouts: readonly RolloutStatus[],
  link: (repo: string, n: number) => string,
): string[] {
  const lines: string[] = [];
  for (const r of rollouts) {
    const name = `${r.upstream.repo}/${r.upstream.package}`;
    lines.push(`### Rollout of ${name}`, "");
    if (r.failed)
      lines.push(
        `🛑 **Stopped at step ${r.failed.step}**: ${cell(r.failed.why)}. Fix it, then comment \`/rollout resume\` on this issue.`,
        "",
      );
    else if (r.complete) lines.push("Every step is done.", "");
    else {
      const current = r.steps.find((s) => s.state !== "done");
      if (current)
        lines.push(
          `Step **${current.name}**: ${STEP[current.state]}${current.why ? ` — ${cell(current.why)}` : ""}`,
          "",
        );
    }
    lines.push("```mermaid", "graph LR");
    const stepIds = r.steps.map((s) => id("s", `${name}\0${s.name}`));
    r.steps.forEach((s, i) => {
      lines.push(
        `  subgraph ${stepIds[i]}[${label(`${i + 1}. ${s.name}: ${STEP[s.state]}${s.automerge ? " (automerge)" : ""}`)}]`,
      );
      for (const m of s.members) {
        const pr = m.pullRequest ? ` #${m.pullRequest}` : "";
        lines.push(
          `    ${id("m", `${name}\0${m.variant}`)}[${label(`${m.downstream.repo}/${m.downstream.package}: ${MEMBER[m.state]}${pr}`)}]`,
        );
      }
      lines.push("  end");
    });
    if (stepIds.length > 1) lines.push(`  ${stepIds.join(" --> ")}`);
    lines.push("```", "");
    const limited = r.steps.flatMap((s) =>
      s.members.filter((m) => m.state === "limited").map((m) => ({ s, m })),
    );
    if (limited.length) {
      lines.push(`Held back by a limit (${limited.length}):`, "");
      for (const { s, m } of limited)
        lines.push(`- ${s.name}: ${m.downstream.repo}/${m.downstream.package} — ${cell(m.why ?? "")}`);
      lines.push("");
    }
    const failed = r.steps.flatMap((s) => s.members.filter((m) => m.state === "failed"));
    for (const m of failed) {
      const pr = m.pullRequest ? ` (${link(m.downstream.repo, m.pullRequest)})` : "";
      lines.push(`- ❌ ${m.downstream.repo}/${m.downstream.package}${pr}: ${cell(m.why ?? "")}`);
    }
    if (failed.length) lines.push("");
  }
  if (rollouts.length)
    lines.push(
      "`/rollout hold` stops new pull requests and automerges; `/rollout resume` goes on (people with write permission).",
      "",
    );
  return lines;
}
