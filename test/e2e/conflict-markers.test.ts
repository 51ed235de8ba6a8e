import { beforeAll, describe, expect, it } from "vitest";
import { kptfile, packageVariant, settings } from "../util/krm.js";
import { editFile, useWorld } from "./harness.js";

const KPTFILE = kptfile("basens");
const cm = settings;
const VARIANT = packageVariant({ name: "c1", upstream: "basens", repo: "cluster-01" });

/**
 * Conflict markers block: a fan-out update whose merge left them opens as a draft with a failing check
 * naming each file and line, and any proposal holding them fails its check and is not published.
 */
describe("conflict markers block (forge over HTTP and git)", () => {
  const owner = "acme";
  const rest = () => w.users.alice!.rest;
  const guardrails = async (repo: string, sha: string) => {
    const runs = (await rest().checks.listForRef({ owner, repo, ref: sha })).data.check_runs;
    const run = runs.find((r) => r.name === "porchlight/guardrails");
    expect(run).toBeDefined();
    const annotations = (await rest().checks.listAnnotations({ owner, repo, check_run_id: run!.id })).data;
    return { run: run!, annotations };
  };
  let ws = 0;
  const propose = async (files: Record<string, string>) => {
    const { number } = await w.propose(`drafts/basens/ws${++ws}`, files);
    return (await rest().pulls.get({ owner, repo: "blueprints", pull_number: number })).data;
  };
  const approve = (n: number) => w.say("bob", n, "/approve");

  const w = useWorld({
    ".porchlight/variants/c1.yaml": VARIANT,
    "basens/Kptfile": KPTFILE,
    "basens/cm.yaml": cm("0"),
    "basens/README.md": "line one\nline two\n",
  });
  beforeAll(async () => {
    await w.forge.createRepo("acme/cluster-01", { files: { "README.md": "# cluster-01\n" } });
    w.forge.setPermission("acme/cluster-01", "alice", "write");
    await w.settle();
    const first = await propose({ "basens/cm.yaml": cm("1") });
    expect(await approve(first.number)).toContain("Published");
    const [clone] = (await rest().pulls.list({ owner, repo: "cluster-01", state: "open" })).data;
    await rest().pulls.merge({ owner, repo: "cluster-01", pull_number: clone!.number, sha: clone!.head.sha });
    await w.settle();
  }, 120_000);

  it("a fan-out update whose merge left markers is a draft, its guardrails check fails at each file and line, and its body lists the local edits upstream replaced", async () => {
    await editFile(
      w,
      "acme/cluster-01",
      "basens/README.md",
      () => "line one\nline two, as cluster-01 says\n",
    );
    await editFile(w, "acme/cluster-01", "basens/cm.yaml", (text) => text.replace('v: "1"', 'v: "local"'), {
      message: "local value",
    });
    await w.settle();
    const pr = await propose({
      "basens/README.md": "line one\nline two, as upstream says\n",
      "basens/cm.yaml": cm("2"),
    });
    expect(await approve(pr.number)).toContain("Published");
    const [update] = (await rest().pulls.list({ owner, repo: "cluster-01", state: "open" })).data;
    expect(update!.draft).toBe(true);
    expect(update!.body).toContain("Local edits replaced by upstream (1)");
    expect(update!.body).toContain("- `basens/cm.yaml: data.v` (ConfigMap/settings)");
    const { run, annotations } = await guardrails("cluster-01", update!.head.sha);
    expect(run.conclusion).toBe("failure");
    expect(run.output.summary).toContain("`basens/README.md` lines 2–8");
    expect(annotations).toEqual([
      expect.objectContaining({
        path: "basens/README.md",
        start_line: 2,
        end_line: 8,
        annotation_level: "failure",
      }),
    ]);
  }, 120_000);

  it("a proposal anyone pushed with markers fails its check, and /approve refuses it", async () => {
    const pr = await propose({
      "basens/notes.md": "Title\n=====\n\n<<<<<<< HEAD\nmine\n=======\ntheirs\n>>>>>>> other\n",
      "basens/cm.yaml": `${cm("1")}<<<<<<< local\n`,
    });
    const { run, annotations } = await guardrails("blueprints", pr.head.sha);
    expect(run.conclusion).toBe("failure");
    expect(annotations.map((a) => [a.path, a.start_line, a.end_line])).toEqual([
      ["basens/cm.yaml", 7, 7],
      ["basens/notes.md", 4, 8],
    ]);
    expect(await approve(pr.number)).toContain("porchlight/guardrails is not green");
    expect((await rest().pulls.get({ owner, repo: "blueprints", pull_number: pr.number })).data.merged).toBe(
      false,
    );
  }, 120_000);
});
