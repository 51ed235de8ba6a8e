import { afterAll, describe, expect, it } from "vitest";
import { branchHead, checkRuns, useWorld, WEB_KPTFILE, webSettings } from "./harness.js";

const BROKEN = `mergeMethod: fast-forward
guardrails:
  - image: ghcr.io/kptdev/krm-functions-catalog/kubeconform:v0.1
    packges: ["apps/**"]
`;

/**
 * A pull request that changes `.github/porchlight.yml`, over real HTTP and git: `porchlight/config` on
 * its head fails with an annotation at each problem's line, and passes once fixed; meanwhile the bot
 * keeps running with the default branch's configuration.
 */
describe("a pull request changing the configuration (forge over HTTP and git)", () => {
  const [owner, repo] = ["acme", "blueprints"];
  const rest = () => w.users.alice!.rest;

  const w = useWorld({
    ".github/porchlight.yml": "mergeMethod: merge\n",
    "apps/web/Kptfile": WEB_KPTFILE,
    "apps/web/cm.yaml": webSettings("0"),
  });
  afterAll(async () => {
    expect(w.forge.errors).toEqual([]);
  });

  it("fails porchlight/config at each problem's line, still runs with main's configuration, and passes once fixed", async () => {
    const clone = await w.clone("alice");
    const broken = await clone.push("tune-config", { ".github/porchlight.yml": BROKEN });
    const { data: pr } = await rest().pulls.create({
      owner,
      repo,
      head: "tune-config",
      base: "main",
      title: "tune",
    });
    await w.settle();

    const [config] = (await checkRuns(w, broken)).filter((r) => r.name === "porchlight/config");
    expect(config).toMatchObject({ conclusion: "failure", head_sha: broken });
    expect(config!.output.summary).toContain(
      '.github/porchlight.yml:1:14 (tune-config): mergeMethod: must be one of merge, squash, rebase, not "fast-forward"',
    );
    const annotations = await rest().checks.listAnnotations({ owner, repo, check_run_id: config!.id });
    expect(annotations.data.map((a) => [a.path, a.start_line, a.annotation_level, a.title])).toEqual([
      [".github/porchlight.yml", 1, "failure", "porchlight config: mergeMethod"],
      [".github/porchlight.yml", 4, "failure", "porchlight config: guardrails[0].packges"],
    ]);

    // The proposal is only checked: a draft pushed meanwhile renders with main's configuration.
    const draft = await clone.push("drafts/apps/web/edit", { "apps/web/cm.yaml": webSettings("1") });
    await w.settle();
    const rendered = await branchHead(w, "drafts/apps/web/edit");
    expect(rendered).not.toBe(draft);
    expect((await checkRuns(w, rendered)).map((r) => [r.name, r.conclusion])).toEqual([
      ["porchlight/render", "success"],
    ]);

    const fixed = await clone.push(
      "tune-config",
      { ".github/porchlight.yml": "mergeMethod: squash\nrequiredApprovals: 2\n" },
      "tune-config",
    );
    await w.settle();
    expect((await rest().pulls.get({ owner, repo, pull_number: pr.number })).data.head.sha).toBe(fixed);
    expect((await checkRuns(w, fixed)).find((r) => r.name === "porchlight/config")).toMatchObject({
      conclusion: "success",
      output: expect.objectContaining({ title: ".github/porchlight.yml is valid" }),
    });
  });

  it("a pull request that fixes a broken configuration on main gets a green porchlight/config", async () => {
    const { data: current } = await rest().repos.getContent({
      owner,
      repo,
      path: ".github/porchlight.yml",
      ref: "main",
    });
    await rest().repos.createOrUpdateFileContents({
      owner,
      repo,
      path: ".github/porchlight.yml",
      message: "break it",
      content: Buffer.from("requiredApprovals: lots\n").toString("base64"),
      sha: (current as { sha: string }).sha,
    });
    await w.settle();
    expect((await checkRuns(w, "main")).find((r) => r.name === "porchlight/config")?.conclusion).toBe(
      "failure",
    );

    const fix = await (await w.clone("alice")).push("fix-config", {
      ".github/porchlight.yml": "requiredApprovals: 2\n",
    });
    await rest().pulls.create({ owner, repo, head: "fix-config", base: "main", title: "fix" });
    await w.settle();
    expect(
      (await checkRuns(w, fix)).filter((r) => r.name === "porchlight/config").map((r) => r.conclusion),
    ).toEqual(["success"]);
  });
});
