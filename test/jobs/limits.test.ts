import { describe, expect, it } from "vitest";
import { DEFAULT_LIMITS } from "../../src/config/limits.js";
import { checkProposal } from "../../src/jobs/check-proposal/index.js";
import { KptRenderer } from "../../src/jobs/kpt-renderer/index.js";
import { renderDraft } from "../../src/jobs/render-draft/index.js";
import { type FakeRepo, fakeRepoWith } from "./fake-repo.js";
import { cm, jobContext, KPTFILE } from "./helpers.js";

const BRANCH = "drafts/apps/big/edit-1";

/** A draft of `apps/big` with `n` ConfigMaps, one file each. */
function draftOf(n: number) {
  const repo = fakeRepoWith({ "README.md": "hi\n" });
  repo.branch(BRANCH, "main");
  const files: Record<string, string> = { "apps/big/Kptfile": KPTFILE };
  for (let i = 0; i < n; i++) files[`apps/big/cm-${i}.yaml`] = cm(`cm-${i}`);
  const head = repo.commit(BRANCH, files);
  return { repo, head };
}

/** A job context over `repo` rendering for real (KptRenderer, not the fake), under the operator's limits and `limits`. */
const renderingWithKpt = (repo: FakeRepo, limits: Partial<typeof DEFAULT_LIMITS>) => ({
  ...jobContext(repo),
  renderer: new KptRenderer(),
  operatorLimits: { ...DEFAULT_LIMITS, ...limits },
});

describe("what one package may cost", () => {
  it("a draft over the file limit fails its render check naming the limit, the figure and the setting, unread", async () => {
    const { repo, head } = draftOf(30);
    const ctx = { ...jobContext(repo), operatorLimits: { ...DEFAULT_LIMITS, packageFiles: 20 } };

    const outcome = await renderDraft(ctx, { branch: BRANCH });

    expect(outcome.kind).toBe("failed");
    expect(ctx.renderer.renders).toBe(0);
    expect(repo.calls).not.toContain("readTree");
    expect(repo.resolve(BRANCH)).toBe(head);
    const [run] = repo.runsOn(head, "porchlight/render");
    expect(run?.conclusion).toBe("failure");
    expect(run?.title).toBe("apps/big is over the packageFiles limit");
    expect(run?.summary).toContain(
      "`apps/big`: holds 31 files, more than the limit of 20 files per package (`packageFiles`); split the package into smaller ones, or the app's operator can raise it with PORCHLIGHT_MAX_PACKAGE_FILES",
    );
  });

  it("a limit the repository lowered names its own setting", async () => {
    const { repo, head } = draftOf(3);
    const ctx = jobContext(repo, { limits: { packageBytes: 100 } });
    await renderDraft(ctx, { branch: BRANCH });
    const [run] = repo.runsOn(head, "porchlight/render");
    expect(run?.summary).toMatch(
      /`apps\/big`: holds \d+ bytes, more than the limit of 100 bytes per package \(`packageBytes`\); split the package into smaller ones, or this repository set it: raise `limits.packageBytes` in .github\/porchlight.yml/,
    );
  });

  it("counts resources before any function runs: over the limit, nothing is rendered or pushed", async () => {
    const { repo, head } = draftOf(12);
    const ctx = renderingWithKpt(repo, { packageResources: 10 });
    const outcome = await renderDraft(ctx, { branch: BRANCH });
    expect(outcome.kind).toBe("failed");
    expect(repo.resolve(BRANCH)).toBe(head);
    const [run] = repo.runsOn(head, "porchlight/render");
    expect(run?.annotations).toEqual([]);
    expect(run?.summary).toContain(
      "`apps/big`: holds 12 resources, more than the limit of 10 resources per package (`packageResources`)",
    );
  });

  it("counts resources, not the Kptfile: a package of exactly the limit renders", async () => {
    const { repo, head } = draftOf(10);
    const ctx = renderingWithKpt(repo, { packageResources: 10 });
    const outcome = await renderDraft(ctx, { branch: BRANCH });
    expect(outcome).toEqual({ kind: "clean", headSha: head });
    const [run] = repo.runsOn(head, "porchlight/render");
    expect(run?.conclusion).toBe("success");
  });

  it("a proposal's oversized package fails both checks; its other package is still checked", async () => {
    const repo = fakeRepoWith({ "README.md": "hi\n", "apps/web/Kptfile": KPTFILE });
    repo.branch(BRANCH, "main");
    const files: Record<string, string> = {
      "apps/big/Kptfile": KPTFILE,
      "apps/web/cm.yaml": `${cm("web")}# rendered\n`,
    };
    for (let i = 0; i < 30; i++) files[`apps/big/cm-${i}.yaml`] = `${cm(`cm-${i}`)}# rendered\n`;
    repo.commit(BRANCH, files);
    const pr = repo.openPull(BRANCH);
    const ctx = { ...jobContext(repo), operatorLimits: { ...DEFAULT_LIMITS, packageFiles: 20 } };

    const outcome = await checkProposal(ctx, { pull: pr.number });

    expect(outcome).toMatchObject({ kind: "checked", render: false, guardrails: false });
    const [render] = repo.runsOn(pr.headSha, "porchlight/render");
    expect(render?.summary).toContain("❌ `apps/big`: holds 31 files, more than the limit of 20 files");
    expect(render?.summary).toContain("✅ `apps/web`: the committed files are the rendered output");
    expect(ctx.renderer.renders).toBe(1);
    const [summary] = repo.commentsOn(pr.number);
    expect(summary?.body).toContain(
      "### `apps/big`\n\nNot compared: the package is over the `packageFiles` limit (porchlight/render says by how much).",
    );
  });

  it("the packages of one proposal together stay within the job's limit", async () => {
    const repo = fakeRepoWith({ "README.md": "hi\n" });
    repo.branch(BRANCH, "main");
    const files: Record<string, string> = {};
    for (const p of ["a", "b", "c"]) {
      files[`apps/${p}/Kptfile`] = KPTFILE;
      for (let i = 0; i < 5; i++) files[`apps/${p}/cm-${i}.yaml`] = `${cm(`cm-${i}`)}# rendered\n`;
    }
    repo.commit(BRANCH, files);
    const pr = repo.openPull(BRANCH);
    const ctx = { ...jobContext(repo), operatorLimits: { ...DEFAULT_LIMITS, jobFiles: 15 } };

    await checkProposal(ctx, { pull: pr.number });

    const [render] = repo.runsOn(pr.headSha, "porchlight/render");
    expect(render?.summary).toContain(
      "❌ `apps/c`: the packages this job reads hold 18 files, more than the limit of 15 files per job (`jobFiles`); propose fewer packages at once, or the app's operator can raise it with PORCHLIGHT_MAX_JOB_FILES",
    );
    expect(render?.summary).toContain("✅ `apps/a`");
    expect(render?.summary).toContain("✅ `apps/b`");
  });
});
