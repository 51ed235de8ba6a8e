import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWorld, sweep, type World } from "./harness.js";

const KPTFILE = "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: hello\n";
const CM = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  a: '1'\n";

/** A push to a branch under drafts/ whose name breaks the rules: a failing check says which rule, once. */
describe("a draft branch whose name porchlight cannot use (forge over HTTP and git)", () => {
  let w: World;
  beforeAll(async () => {
    w = await startWorld({ "hello/Kptfile": KPTFILE, "hello/cm.yaml": CM });
  }, 120_000);
  afterAll(() => w?.stop());

  const renderChecks = async (sha: string) =>
    (
      await w.users.alice!.rest.checks.listForRef({ owner: "acme", repo: "blueprints", ref: sha })
    ).data.check_runs.filter((r) => r.name === "porchlight/render");

  it.each([
    ["drafts/hello/Größe", 'the workspace name "Größe" must use only lowercase letters, digits and'],
    ["drafts/solo", '"drafts/solo" needs a package path and a workspace: drafts/<package>/<workspace>'],
  ])(
    "%s: the head's check names the rule and how to name the branch, and a sweep adds none",
    async (branch, rule) => {
      const clone = await w.clone("alice");
      const sha = await clone.push(branch, { "hello/cm.yaml": CM.replace("'1'", "'2'") });
      await w.settle();
      const [check, ...more] = await renderChecks(sha);
      expect(more).toEqual([]);
      expect(check?.conclusion).toBe("failure");
      expect(check?.output.title).toBe(`${branch} is not a draft name porchlight can use`);
      expect(check?.output.summary).toContain(rule);
      expect(check?.output.summary).toContain("git push origin HEAD:drafts/<package>/<workspace>");
      await sweep(w);
      expect(await renderChecks(sha)).toHaveLength(1);
    },
    120_000,
  );
});
