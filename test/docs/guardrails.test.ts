import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkRuns, startWorld, type World } from "../e2e/harness.js";
import { docBlock } from "../util/doc-blocks.js";

const KPTFILE = (name: string) => `apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: ${name}\n`;
const deployment = (image: string, extra = "") => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
        - name: web
          image: ${image}
${extra}`;

/**
 * docs/config.md's example configuration and its guardrail policy, in a repository on the forge, with the
 * app: the guardrails pass the proposals they should and fail those they should, annotating files the
 * repository has (issue 40: the example failed every proposal).
 */
describe("docs/config.md's guardrails, on proposals", () => {
  let w: World;
  const config = docBlock("docs/config.md", "# .github/porchlight.yml").text;
  const policy = docBlock("docs/config.md", "# policy/no-latest-tags.yaml").text;

  beforeAll(async () => {
    w = await startWorld({
      ".github/porchlight.yml": config,
      "policy/no-latest-tags.yaml": policy,
      "packages/apps/web/Kptfile": KPTFILE("web"),
      "packages/apps/web/deployment.yaml": deployment("nginx:1.27"),
      "packages/infra/web/Kptfile": KPTFILE("web"),
      "packages/infra/web/deployment.yaml": deployment("nginx:1.27"),
    });
  }, 120_000);
  afterAll(async () => {
    await w?.stop();
  });

  const guardrails = async (n: number) => {
    const pr = (await w.users.alice!.rest.pulls.get({ owner: "acme", repo: "blueprints", pull_number: n }))
      .data;
    const run = (await checkRuns(w, pr.head.sha)).find((r) => r.name === "porchlight/guardrails");
    const annotations = run
      ? (
          await w.users.alice!.rest.checks.listAnnotations({
            owner: "acme",
            repo: "blueprints",
            check_run_id: run.id,
          })
        ).data.map((a) => `${a.path}:${a.start_line}: ${a.message}`)
      : [];
    return { conclusion: run?.conclusion, summary: run?.output.summary ?? "", annotations };
  };

  it("pass a package with pinned images", async () => {
    const { number } = await w.propose("drafts/packages/apps/web/pinned", {
      "packages/apps/web/deployment.yaml": deployment("nginx:1.28"),
    });
    expect(await guardrails(number)).toMatchObject({ conclusion: "success", annotations: [] });
  });

  it("fail a package under apps/ running a :latest image, saying which", async () => {
    const { number } = await w.propose("drafts/packages/apps/web/latest", {
      "packages/apps/web/deployment.yaml": deployment("nginx:latest"),
    });
    const g = await guardrails(number);
    expect(g.conclusion).toBe("failure");
    expect(g.summary).toContain("Deployment web: container web runs nginx:latest, not a pinned tag");
  });

  it("leave a package outside apps/ to kubeconform alone", async () => {
    const { number } = await w.propose("drafts/packages/infra/web/latest", {
      "packages/infra/web/deployment.yaml": deployment("nginx:latest"),
    });
    expect(await guardrails(number)).toMatchObject({ conclusion: "success", annotations: [] });
  });

  it("pass over a Kptfile outside packageRoot, and fail a draft of it saying why", async () => {
    const { number } = await w.propose("drafts/fixtures/web/latest", {
      "fixtures/web/Kptfile": KPTFILE("web"),
      "fixtures/web/deployment.yaml": deployment("nginx:latest", "  replica: 2\n"),
    });
    const pr = (
      await w.users.alice!.rest.pulls.get({ owner: "acme", repo: "blueprints", pull_number: number })
    ).data;
    const render = (await checkRuns(w, pr.head.sha)).find((r) => r.name === "porchlight/render");
    expect(render?.conclusion).toBe("failure");
    expect(render?.output.summary).toContain("`fixtures/web` is not under `packageRoot: packages`");
    expect((await guardrails(number)).annotations).toEqual([]);
  });

  it("fail a resource with a field its kind does not have, annotated on the repository's file", async () => {
    const { number } = await w.propose("drafts/packages/infra/web/typo", {
      "packages/infra/web/deployment.yaml": deployment("nginx:1.27", "  replica: 2\n"),
    });
    const g = await guardrails(number);
    expect(g.conclusion).toBe("failure");
    expect(g.annotations).toHaveLength(1);
    expect(g.annotations[0]).toMatch(/^packages\/infra\/web\/deployment\.yaml:\d+: .*replica/);
  });
});
