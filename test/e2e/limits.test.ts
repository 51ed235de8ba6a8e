import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useWorld } from "./harness.js";

const KPTFILE = (name: string) => `apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: ${name}
pipeline:
  mutators:
    - image: ghcr.io/kptdev/krm-functions-catalog/set-labels:v0.2
      configMap:
        team: web
`;
const cm = (name: string, filler = "") => `apiVersion: v1
kind: ConfigMap
metadata:
  name: ${name}
data:
  v: "${filler}"
`;

/**
 * A package over a limit, with the app's default limits, over real HTTP and git: its draft fails
 * `porchlight/render` naming the limit and the setting, nothing is pushed, and another repository's
 * draft pushed at the same time is rendered as usual.
 */
describe("a package over a limit (forge over HTTP and git)", () => {
  const [owner, repo, other] = ["acme", "blueprints", "clusters"];
  const rest = () => w.users.alice!.rest;
  const checks = async (r: string, ref: string) =>
    (await rest().checks.listForRef({ owner, repo: r, ref })).data.check_runs;
  const head = async (r: string, branch: string) =>
    (await rest().git.getRef({ owner, repo: r, ref: `heads/${branch}` })).data.object.sha;

  const w = useWorld({ "apps/web/Kptfile": KPTFILE("web") });
  beforeAll(async () => {
    await w.forge.createRepo(`${owner}/${other}`, {
      files: { "README.md": "# clusters\n", "apps/web/Kptfile": KPTFILE("web") },
    });
    w.forge.setPermission(`${owner}/${other}`, "alice", "write");
  });
  afterAll(async () => {
    expect(w.forge.errors).toEqual([]);
  });

  it("fails the oversized draft's render check with the limit, the figure and the setting; another repository's draft still renders", async () => {
    // 10 MiB of ConfigMaps: past the default 8 MiB a package, found from the git tree's sizes.
    const filler = "x".repeat(460);
    const big = Array.from({ length: 20_000 }, (_, i) => cm(`cm-${i}`, filler)).join("---\n");
    expect(big.length).toBeGreaterThan(8 * 1024 * 1024);
    const bigSha = await (await w.clone("alice")).push("drafts/apps/web/huge", {
      "apps/web/cms.yaml": big,
    });
    const smallSha = await (await w.clone("alice", `${owner}/${other}`)).push("drafts/apps/web/small", {
      "apps/web/cm.yaml": cm("settings"),
    });
    await w.settle();

    const [render] = (await checks(repo, bigSha)).filter((r) => r.name === "porchlight/render");
    expect(render).toMatchObject({ conclusion: "failure" });
    expect(render!.output.title).toBe("apps/web is over the packageBytes limit");
    const bytes = big.length + KPTFILE("web").length;
    expect(render!.output.summary).toContain(
      `\`apps/web\`: holds ${bytes.toLocaleString("en-US")} bytes (10.2 MiB)`,
    );
    expect(render!.output.summary).toContain(
      "more than the limit of 8,388,608 bytes (8.0 MiB) per package (`packageBytes`); split the package into smaller ones, or the app's operator can raise it with PORCHLIGHT_MAX_PACKAGE_BYTES",
    );
    expect(render!.output.annotations_count).toBe(0);
    expect(await head(repo, "drafts/apps/web/huge")).toBe(bigSha);

    const rendered = await head(other, "drafts/apps/web/small");
    expect(rendered).not.toBe(smallSha);
    expect((await checks(other, rendered)).map((r) => [r.name, r.conclusion])).toEqual([
      ["porchlight/render", "success"],
    ]);
  });

  it("a draft rendered within the limits, proposed after the repository lowered one: render fails naming it, as guardrails say", async () => {
    await (await w.clone("alice", `${owner}/${other}`)).push("drafts/apps/web/later", {
      "apps/web/a.yaml": cm("a"),
      "apps/web/b.yaml": cm("b"),
    });
    await w.settle();
    // The bot's render commit (set-labels labels the ConfigMaps) is the head the proposal starts from.
    const at = await head(other, "drafts/apps/web/later");
    expect((await checks(other, at)).map((r) => [r.name, r.conclusion])).toEqual([
      ["porchlight/render", "success"],
    ]);
    // The repository lowers packageFiles below the draft's 3 files, then the draft is proposed.
    await rest().repos.createOrUpdateFileContents({
      owner,
      repo: other,
      path: ".github/porchlight.yml",
      message: "lower the package limits",
      content: Buffer.from("limits:\n  packageFiles: 2\n").toString("base64"),
    });
    await w.settle();
    await rest().pulls.create({
      owner,
      repo: other,
      head: "drafts/apps/web/later",
      base: "main",
      title: "later",
    });
    await w.settle();

    const byName = Object.fromEntries((await checks(other, at)).map((r) => [r.name, r]));
    expect(byName["porchlight/render"]).toMatchObject({
      conclusion: "failure",
      output: { title: "apps/web is over the packageFiles limit" },
    });
    expect(byName["porchlight/render"]!.output.summary).toContain(
      "`apps/web`: holds 3 files, more than the limit of 2 files per package (`packageFiles`); split the package into smaller ones, or this repository set it: raise `limits.packageFiles` in .github/porchlight.yml",
    );
    expect(byName["porchlight/guardrails"]).toMatchObject({ conclusion: "failure" });
    expect(byName["porchlight/guardrails"]!.output.summary).toContain(
      "`apps/web`: not checked, porchlight/render says why",
    );
    // The head counts as rendered: a sweep does not render it again to say it passed.
    await w.app.sweep();
    await w.settle();
    expect((await checks(other, at)).find((r) => r.name === "porchlight/render")).toMatchObject({
      conclusion: "failure",
    });
  });
});
