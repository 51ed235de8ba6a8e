import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KptRenderer } from "../../src/jobs/kpt-renderer/index.js";
import { treeFromText, treeToText } from "../../src/kpt/tree.js";
import { kptfile, pipeline } from "../util/krm.js";
import { startWorld, type World } from "./harness.js";

const KPTFILE = kptfile(
  "web",
  pipeline(["ghcr.io/kptdev/krm-functions-catalog/set-labels:v0.2.0", { team: "web" }]),
);
const FILES = 20;
/** Files `yaml`'s parser reads (a comment line), which the renderer keeps; the fast reader's it reads again. */
const configMap = (n: number, value = "1") =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-${n}\ndata:\n  # the value\n  value: "${value}"\n`;

/**
 * The bot's renderer lives as long as the app: a push that changes one file of a package parses the
 * files that changed, not the package; a push that leaves the package as it last rendered runs no
 * function. Counted by the renderer, not timed.
 */
describe("porchlight bot renders only what a push changed (forge over HTTP and git)", () => {
  let w: World;
  const renderer = new KptRenderer();
  const branch = "drafts/apps/web/cache";
  const [owner, repo] = ["acme", "blueprints"];
  const head = async () =>
    (await w.users.alice!.rest.git.getRef({ owner, repo, ref: `heads/${branch}` })).data.object.sha;
  const renderCheck = async (sha: string) =>
    (await w.users.alice!.rest.checks.listForRef({ owner, repo, ref: sha })).data.check_runs.find(
      (r) => r.name === "porchlight/render",
    );

  beforeAll(async () => {
    // The package on main is rendered already, as a package that went through porchlight is.
    const pkg: Record<string, string> = { Kptfile: KPTFILE };
    for (let i = 0; i < FILES; i++) pkg[`cm-${i}.yaml`] = configMap(i);
    const rendered = await new KptRenderer().render(treeFromText(pkg), { runtimes: ["builtin"] });
    const files: Record<string, string> = {
      ".github/porchlight.yml": "guardrails: []\n",
    };
    for (const [path, text] of Object.entries(treeToText(rendered.tree))) files[`apps/web/${path}`] = text;
    w = await startWorld(files, { renderer });
  });
  afterAll(async () => {
    await w?.stop();
  });

  it("parses the changed files only, and runs nothing for a push outside the package, the second time too", async () => {
    const alice = await w.clone("alice");
    await alice.push(branch, { "apps/web/cm-3.yaml": configMap(3, "2") });
    await w.settle();
    // Every file, and none again: the render of the bot's commit (cm-3 labelled) is told by the
    // pipeline's declarations (set-labels sets its labels again), so the next push starts from it.
    expect(renderer.stats.filesParsed).toBe(FILES);
    const afterFirst = await head();

    // The push changes one file: it alone is parsed (the bot's render of it is told).
    await alice.push(branch, { "apps/web/cm-5.yaml": configMap(5, "2") }, afterFirst);
    await w.settle();
    expect(renderer.stats.filesParsed).toBe(FILES + 1);
    const rendered = await head();
    expect((await renderCheck(rendered))?.conclusion).toBe("success");

    // Pushes outside the package: its files are as the bot rendered (and committed) them, a tree known
    // to render to itself, answered without running a function or parsing a file.
    const ran = renderer.stats.functionsRun;
    const unchanged = renderer.stats.unchanged;
    let at = rendered;
    for (const [i, text] of ["# blueprints, edited\n", "once more\n", "and again\n"].entries()) {
      const from = w.forge.requestLog.entries.length;
      const pushed = await alice.push(branch, { "README.md": text }, at);
      await w.settle();
      expect(await head()).toBe(pushed);
      expect((await renderCheck(pushed))?.conclusion).toBe("success");
      // What the push cost the app on GitHub: whether the head and its parent were checked (one listing
      // each; from the second push on, the parent is the head before, whose runs the app listed and wrote
      // itself: github/own-check-runs.ts), the check, and one fetch of the branch, in process (two git
      // requests: ls-refs and fetch; git's own fetch asked the advertisement first, three); and where the
      // configuration is (the repository's default branch and the organisation's .github, one ls-refs
      // each by git, which GitHub's REST budget does not count: the configuration read once per commit).
      const app = w.forge.requestLog.entries.slice(from).filter((e) => e.installationId !== null);
      const count = (method: string, suffix: string) =>
        app.filter((e) => e.method === method && e.route.endsWith(suffix)).length;
      expect(count("GET", "/check-runs")).toBe(i === 0 ? 2 : 1);
      expect(count("POST", "/check-runs") + count("PATCH", "/check-runs/{check_run_id}")).toBe(1);
      expect(app.filter((e) => e.path.includes(".git/")).length).toBe(4);
      at = pushed;
    }
    expect(renderer.stats.functionsRun).toBe(ran);
    expect(renderer.stats.unchanged).toBe(unchanged + 3);
    expect(renderer.stats.filesParsed).toBe(FILES + 1);
  });
});
