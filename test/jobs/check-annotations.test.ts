import { describe, expect, it } from "vitest";
import { renderDraft } from "../../src/jobs/render-draft/index.js";
import type { RenderFinding } from "../../src/jobs/renderer.js";
import { type CheckAnnotation, capAnnotations } from "../../src/lifecycle/check-run.js";
import { fakeRepoWith } from "./fake-repo.js";
import { cm, jobContext, KPTFILE } from "./helpers.js";

const BRANCH = "drafts/apps/big/edit-1";

/** 120,000 notices (one per ConfigMap), then a warning and a failure at the very end. */
function findings(): RenderFinding[] {
  const out: RenderFinding[] = Array.from({ length: 120_000 }, (_, i) => ({
    function: "set-labels",
    severity: "info" as const,
    message: `labelled cm-${i}`,
    file: "cms.yaml",
    line: 7 * i + 1,
  }));
  out.push({
    function: "kubeconform",
    severity: "warning",
    message: "deprecated",
    file: "cms.yaml",
    line: 2,
  });
  out.push({ function: "kubeconform", severity: "error", message: "invalid", file: "cms.yaml", line: 3 });
  return out;
}

describe("a check run's annotations are capped", () => {
  it("a render with 120,002 results shows 500, the failure and the warning first, and says how many more", async () => {
    const repo = fakeRepoWith({ "README.md": "hi\n" });
    repo.branch(BRANCH, "main");
    const head = repo.commit(BRANCH, { "apps/big/Kptfile": KPTFILE, "apps/big/cms.yaml": cm("a") });
    const ctx = jobContext(repo);
    ctx.renderer.render = async (tree) => ({ ok: true, tree, findings: findings() });

    await renderDraft(ctx, { branch: BRANCH });

    const [run] = repo.runsOn(head, "porchlight/render");
    expect(run?.annotations).toHaveLength(500);
    expect(run?.annotations.slice(0, 3).map((a) => [a.annotation_level, a.start_line])).toEqual([
      ["failure", 3],
      ["warning", 2],
      ["notice", 1],
    ]);
    expect(run?.annotations[499]?.message).toBe("labelled cm-497");
    expect(run?.summary).toContain("…and 119,502 more annotations");
    expect(run?.summary).toContain("porchlight fn render apps/big");
  });

  it("keeps the given order within a level and drops nothing under the cap", () => {
    const a = (level: CheckAnnotation["annotation_level"], line: number): CheckAnnotation => ({
      path: "f.yaml",
      start_line: line,
      end_line: line,
      annotation_level: level,
      message: "m",
    });
    const all = [a("notice", 1), a("warning", 2), a("failure", 3), a("warning", 4), a("failure", 5)];
    expect(capAnnotations(all, 10)).toEqual({ kept: all, omitted: 0 });
    const { kept, omitted } = capAnnotations(all, 3);
    expect(kept.map((x) => x.start_line)).toEqual([3, 5, 2]);
    expect(omitted).toBe(2);
  });
});
