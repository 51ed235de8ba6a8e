import { beforeAll, describe, expect, it } from "vitest";
import { parseVariantPullRequestBody } from "../../src/variants/index.js";
import { kptfile, packageVariant, settings } from "../util/krm.js";
import { sweep, useWorld } from "./harness.js";

const KPTFILE = kptfile("basens");
const cm = settings;
const VARIANT = packageVariant({ name: "c1", upstream: "basens", repo: "cluster-01" });

/**
 * A downstream pull request closed without merging means "not this revision, for this downstream"
 * (Renovate's rule): the sweep does not open it again, the dashboard says it is skipped, a newer revision
 * gets a new pull request, and reopening it resumes it.
 */
describe("a closed fan-out pull request (forge over HTTP and git)", () => {
  const owner = "acme";
  const rest = () => w.users.alice!.rest;
  const pulls = async (state: "open" | "all") =>
    (await rest().pulls.list({ owner, repo: "cluster-01", state })).data.filter((p) =>
      p.head.ref.startsWith("porchlight/variant/"),
    );
  const setState = async (n: number, state: "open" | "closed") => {
    await rest().pulls.update({ owner, repo: "cluster-01", pull_number: n, state });
    await w.settle();
  };
  const dashboardRow = async () => {
    const [issue] = (
      await rest().issues.listForRepo({ owner, repo: "blueprints", labels: "porchlight/dashboard" })
    ).data;
    return (issue?.body ?? "").split("\n").find((l) => l.startsWith("| cluster-01/basens")) ?? "";
  };
  let ws = 0;
  const publish = async (v: string) => {
    const { number } = await w.propose(`drafts/basens/ws${++ws}`, { "basens/cm.yaml": cm(v) });
    await w.say("bob", number, "/approve");
    expect((await rest().pulls.get({ owner, repo: "blueprints", pull_number: number })).data.merged).toBe(
      true,
    );
  };
  const target = (p: { body: string | null }) => parseVariantPullRequestBody(p.body)?.to;

  const w = useWorld({
    ".porchlight/variants/c1.yaml": VARIANT,
    "basens/Kptfile": KPTFILE,
    "basens/cm.yaml": cm("0"),
  });
  beforeAll(async () => {
    await w.forge.createRepo("acme/cluster-01", { files: { "README.md": "# cluster-01\n" } });
    w.forge.setPermission("acme/cluster-01", "alice", "write");
    await w.settle();
    await publish("1");
    const [clone] = await pulls("open");
    await rest().pulls.merge({ owner, repo: "cluster-01", pull_number: clone!.number, sha: clone!.head.sha });
    await w.settle();
  }, 120_000);

  let declined: number;

  it("closed without merging, it is not opened again by the sweep, twice; the dashboard says it is skipped", async () => {
    await publish("2");
    const [update] = await pulls("open");
    expect(target(update!)).toBe("v2");
    declined = update!.number;
    await setState(declined, "closed");
    await sweep(w);
    await sweep(w);
    expect(await pulls("open")).toEqual([]);
    expect((await pulls("all")).filter((p) => !p.merged_at).map((p) => p.number)).toEqual([declined]);
    expect(await dashboardRow()).toContain(`skipped: #${declined} closed`);
  }, 120_000);

  it("reopened, it is resumed at once: the dashboard shows it open, and the bot updates it for the next revision", async () => {
    await setState(declined, "open");
    expect(await dashboardRow()).toMatch(/⏳ waiting for approval: pull request #\d+ proposes v1 → v2/);
    await publish("3");
    const open = await pulls("open");
    expect(open.map((p) => [p.number, target(p)])).toEqual([[declined, "v3"]]);
  }, 120_000);

  it("closed again, a newer revision is proposed in a new pull request from the same branch", async () => {
    await setState(declined, "closed");
    await sweep(w);
    expect(await pulls("open")).toEqual([]);
    await publish("4");
    const open = await pulls("open");
    expect(open).toHaveLength(1);
    expect(open[0]!.number).not.toBe(declined);
    expect(target(open[0]!)).toBe("v4");
    const old = (await pulls("all")).find((p) => p.number === declined)!;
    expect(open[0]!.head.ref).toBe(old.head.ref);
    expect(await dashboardRow()).not.toContain("skipped");
  }, 120_000);
});
