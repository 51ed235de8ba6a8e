import { describe, expect, it } from "vitest";
import { GitHubError } from "../../../src/github/errors.js";
import { reconcileFanout } from "../../../src/jobs/fanout/index.js";
import { renderDraft } from "../../../src/jobs/render-draft/index.js";
import { parseVariantPullRequestBody } from "../../../src/variants/index.js";
import { kptfile, packageVariant } from "../../util/krm.js";
import type { FakeRepo } from "../fake-repo.js";
import { jobContext } from "../helpers.js";
import { FakeInstallation, fanoutContext, publish, WRITES } from "./fake-installation.js";

const KPTFILE = kptfile("basens");
const pv = (name: string, repo: string, extra = "") =>
  packageVariant({ name, upstream: "basens", revision: "v1", repo, extra });

function world(variants: string[]) {
  const inst = new FakeInstallation();
  const up = inst.add("blueprints", { ".porchlight/variants/v.yaml": variants.join("---\n") });
  publish(up, "basens", 1, { Kptfile: KPTFILE, "a.yaml": "a: 1\n" });
  for (const c of ["c1", "c2", "c3"]) inst.add(c);
  return { inst, up, ctx: fanoutContext(inst) };
}

/** Makes `repo`'s call `method` fail with `error` until the function it returns puts the method back. */
function failing<K extends keyof FakeRepo>(repo: FakeRepo, method: K, error: Error): () => void {
  const original = repo[method];
  repo[method] = (async () => {
    throw error;
  }) as unknown as FakeRepo[K];
  return () => {
    repo[method] = original;
  };
}

const openPulls = (inst: FakeInstallation, repo: string) =>
  [...inst.get(repo).pulls.values()].filter((p) => p.state === "open");

describe("fan-out interrupted", () => {
  it("after a failure between push and pull request, the next run ends with one pull request per downstream", async () => {
    const w = world([pv("v1", "c1"), pv("v2", "c2"), pv("v3", "c3")]);
    const c2 = w.inst.get("c2");
    const mend = failing(c2, "createPull", new GitHubError("server", "boom", 502));
    const first = await reconcileFanout(w.ctx, "blueprints");
    expect(first.failures.map((f) => f.variant)).toEqual(["v2"]);
    expect(c2.refs.has("refs/heads/porchlight/variant/basens/v2")).toBe(true);
    expect(w.up.issues[0]!.body).toMatch(/c2\/basens.*⚠️ problem/);
    mend();
    const second = await reconcileFanout(w.ctx, "blueprints");
    expect(second.failures).toEqual([]);
    for (const repo of ["c1", "c2", "c3"]) expect(openPulls(w.inst, repo)).toHaveLength(1);
    w.inst.clearCalls();
    await reconcileFanout(w.ctx, "blueprints");
    expect(w.inst.calls().filter((c) => WRITES.includes(c.split(":")[1]!))).toEqual([]);
  });

  it("after a stop between push and render check, the next run posts the check: the draft's render has nothing left to do", async () => {
    const w = world([pv("v1", "c1"), pv("v2", "c2")]);
    const c2 = w.inst.get("c2");
    // The replica running fan-out dies right after pushing c2's branch, before its render check.
    const mend = failing(c2, "upsertCheckRun", new GitHubError("server", "boom", 502));
    const first = await reconcileFanout(w.ctx, "blueprints");
    expect(first.failures.map((f) => f.variant)).toEqual(["v2"]);
    const branch = "porchlight/variant/basens/v2";
    expect(c2.refs.has(`refs/heads/${branch}`)).toBe(true);
    mend();
    await reconcileFanout(w.ctx, "blueprints");
    expect(openPulls(w.inst, "c2")).toHaveLength(1);
    const [check] = c2.runsOn(c2.resolve(branch), "porchlight/render");
    expect(check).toMatchObject({ status: "completed", conclusion: "success" });
    // The sweep renders every draft: this one fan-out rendered, so it writes nothing.
    c2.calls.length = 0;
    const ctx = jobContext(c2);
    const again = await renderDraft(ctx, { branch });
    expect(again.kind).toBe("skipped");
    expect(c2.calls.filter((c) => c === "upsertCheckRun" || c === "commitTree")).toEqual([]);
    expect(ctx.renderer.renders).toBe(0);
  });

  it("stops at a rate limit the client could not wait out, and the next run resumes", async () => {
    const w = world([pv("v1", "c1")]);
    const c1 = w.inst.get("c1");
    const mend = failing(c1, "addLabels", new GitHubError("rate-limited", "secondary rate limit", 403, 60));
    await expect(reconcileFanout(w.ctx, "blueprints")).rejects.toMatchObject({ kind: "rate-limited" });
    mend();
    await reconcileFanout(w.ctx, "blueprints");
    const [pr] = openPulls(w.inst, "c1");
    expect(pr!.labels).toEqual(["porchlight/update", "porchlight/automated"]);
    expect(openPulls(w.inst, "c1")).toHaveLength(1);
  });

  it("releases the downstream of a removed orphan-policy variant instead of deleting it", async () => {
    const w = world([pv("v1", "c1", "  deletionPolicy: orphan\n")]);
    await reconcileFanout(w.ctx, "blueprints");
    const c1 = w.inst.get("c1");
    const [clone] = openPulls(w.inst, "c1");
    await c1.mergePull(clone!.number, { sha: c1.resolve(clone!.headRef), method: "merge" });
    w.up.commit("main", { ".porchlight/variants/v.yaml": "# none\n" });
    await reconcileFanout(w.ctx, "blueprints");
    const [pr] = openPulls(w.inst, "c1");
    expect(parseVariantPullRequestBody(pr!.body)?.kind).toBe("orphan");
    const kptfile = c1.files(pr!.headRef, "basens").Kptfile!;
    expect(kptfile).not.toContain("porchlight.dev/package-variant");
    expect(c1.files(pr!.headRef, "basens")["a.yaml"]).toBeDefined();
  });
});
