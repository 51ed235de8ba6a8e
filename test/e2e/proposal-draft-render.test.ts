import { describe, expect, it } from "vitest";
import { kptfile, pipeline } from "../util/krm.js";
import { branchHead, sweepWrites, useWorld } from "./harness.js";

const KPTFILE = kptfile(
  "web",
  pipeline(["ghcr.io/kptdev/krm-functions-catalog/apply-setters:v0.2.0", { tier: "web" }]),
);
/** A ConfigMap whose `tier` apply-setters sets: one info result ("set field value to …") per file. */
const settings = (name: string, extra = "") =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  tier: web # kpt-set: \${tier}\n${extra}`;

/**
 * A draft with its proposal open, over real HTTP and git: each head's `porchlight/render` is the draft
 * render's, written once (the proposal check does not write it a second time), its info results
 * annotated on the files the push changed; and a sweep afterwards finds the head rendered and writes
 * nothing.
 */
describe("a draft's proposal: the draft render's check stands on each head (forge over HTTP and git)", () => {
  const [owner, repo] = ["acme", "blueprints"];
  const rest = () => w.users.alice!.rest;
  const w = useWorld({ ".github/porchlight.yml": "guardrails: []\n" });
  const branch = "drafts/apps/web/v1";

  /** Every run of a check on `sha`, the replaced ones too (GitHub's `filter=all`). */
  const allRuns = async (sha: string, name: string) =>
    (await rest().checks.listForRef({ owner, repo, ref: sha, check_name: name, filter: "all" })).data
      .check_runs;
  const annotatedPaths = async (runId: number) =>
    (await rest().checks.listAnnotations({ owner, repo, check_run_id: runId, per_page: 100 })).data
      .map((a) => `${a.path} ${a.annotation_level}`)
      .sort();

  it("a push to the draft: one render run on the head, annotating what the push changed; a sweep writes nothing", async () => {
    const alice = await w.clone("alice");
    await alice.push(branch, {
      "apps/web/Kptfile": KPTFILE,
      "apps/web/a.yaml": settings("a"),
      "apps/web/b.yaml": settings("b"),
      "apps/web/c.yaml": settings("c"),
    });
    await w.settle();
    await rest().pulls.create({ owner, repo, head: branch, base: "main", title: "web" });
    await w.settle();
    const opened = await branchHead(w, branch);
    const [first, ...replaced] = await allRuns(opened, "porchlight/render");
    expect(replaced).toEqual([]);
    expect(first?.conclusion).toBe("success");
    expect(await annotatedPaths(first?.id ?? 0)).toEqual([
      "apps/web/a.yaml notice",
      "apps/web/b.yaml notice",
      "apps/web/c.yaml notice",
    ]);

    await alice.push(branch, { "apps/web/b.yaml": settings("b", "  size: small\n") }, `origin/${branch}`);
    await w.settle();
    const edited = await branchHead(w, branch);
    expect(edited).not.toBe(opened);
    const runs = await allRuns(edited, "porchlight/render");
    expect(runs.map((r) => r.conclusion)).toEqual(["success"]);
    expect(await annotatedPaths(runs[0]?.id ?? 0)).toEqual(["apps/web/b.yaml notice"]);
    expect(runs[0]?.output.summary).toContain("2 info results are on files this commit did not change");
    const guardrails = await allRuns(edited, "porchlight/guardrails");
    expect(guardrails.map((r) => r.conclusion)).toEqual(["success"]);

    expect(await sweepWrites(w)).toEqual([]);
  }, 120_000);
});
