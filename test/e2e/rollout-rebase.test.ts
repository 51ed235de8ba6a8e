import { beforeAll, describe, expect, it } from "vitest";
import { packageVariant } from "../util/krm.js";
import { sweep, useWorld } from "./harness.js";

/**
 * The rebase policy (`rebaseWhen`): after each downstream's default branch moved under its open fan-out
 * pull request, `never` (the default, here dev-1, which no step selects) leaves the pull request alone
 * sweep after sweep, writing nothing; `behind-base-branch` (step `fast`, dev-2) rebuilds it once on the
 * moved branch, and the sweep after that has nothing to write.
 */
const CONFIG = `rollout:
  steps:
    - name: fast
      variants: [dev-2]
      rebaseWhen: behind-base-branch
`;
const variant = (name: string) => packageVariant({ name, upstream: "basens", repo: name });

describe("the rebase policy of open fan-out pull requests", () => {
  const owner = "acme";
  const rest = () => w.users.alice!.rest;
  const openPull = async (repo: string) => {
    const [pr] = (await rest().pulls.list({ owner, repo, state: "open" })).data;
    return pr!;
  };
  const head = async (repo: string, ref: string) =>
    (await rest().repos.getBranch({ owner, repo, branch: ref })).data.commit;
  /**
   * Requests that move something of a pull request in `repo`: git pushes, ref and pull request writes.
   * (Check runs and comments are other jobs', which may still finish after a sweep's jobs: counting them
   * made the figure depend on timing — "expected 14 to be 13" under load.)
   */
  const writes = (repo: string) =>
    w.forge.requestLog
      .filter({})
      .filter(
        (r) =>
          r.method !== "GET" &&
          r.path.includes(`/${owner}/${repo}`) &&
          (r.route.endsWith("git-receive-pack") ||
            r.route.includes("/git/refs") ||
            r.route.includes("/pulls")),
      ).length;

  const w = useWorld({
    ".github/porchlight.yml": CONFIG,
    ".porchlight/variants/dev-1.yaml": variant("dev-1"),
    ".porchlight/variants/dev-2.yaml": variant("dev-2"),
    "basens/Kptfile": "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: basens\n",
    "basens/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n",
  });
  beforeAll(async () => {
    for (const repo of ["dev-1", "dev-2"]) {
      await w.forge.createRepo(`acme/${repo}`, { files: { "README.md": `# ${repo}\n` } });
      w.forge.setPermission(`acme/${repo}`, "alice", "write");
    }
    await w.settle();
  }, 60_000);

  it("never leaves a pull request behind its moved base alone; behind-base-branch rebuilds it once", async () => {
    const { number } = await w.propose("drafts/basens/one", {
      "basens/cm.yaml": 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  v: "1"\n',
    });
    expect(await w.say("bob", number, "/approve")).toContain("Published");
    const before = { "dev-1": await openPull("dev-1"), "dev-2": await openPull("dev-2") };

    // People move both default branches on: the pull requests are now behind them.
    const moved: Record<string, string> = {};
    for (const repo of ["dev-1", "dev-2"] as const) {
      moved[repo] = await (await w.clone("alice", `acme/${repo}`)).push("main", {
        "README.md": `# ${repo}\n\nOwned by the platform team.\n`,
      });
    }
    await w.settle();

    const dev1Writes = writes("dev-1");
    const dev2Before = writes("dev-2");
    await sweep(w);
    expect(writes("dev-2")).toBeGreaterThan(dev2Before);
    // never: untouched, nothing written to dev-1.
    expect((await openPull("dev-1")).head.sha).toBe(before["dev-1"].head.sha);
    expect(writes("dev-1")).toBe(dev1Writes);
    // behind-base-branch: the same pull request, its branch rebuilt on the moved default branch.
    const rebuilt = await openPull("dev-2");
    expect(rebuilt.number).toBe(before["dev-2"].number);
    expect(rebuilt.head.sha).not.toBe(before["dev-2"].head.sha);
    const commit = await head("dev-2", rebuilt.head.ref);
    expect(commit.parents.map((p) => p.sha)).toEqual([moved["dev-2"]]);
    expect(
      (await rest().pulls.listFiles({ owner, repo: "dev-2", pull_number: rebuilt.number })).data.map(
        (f) => f.filename,
      ),
    ).toEqual(expect.arrayContaining(["basens/cm.yaml"]));

    // The next sweep: nothing to do for either.
    const dev2Writes = writes("dev-2");
    await sweep(w);
    expect(writes("dev-1")).toBe(dev1Writes);
    expect(writes("dev-2")).toBe(dev2Writes);
    expect((await openPull("dev-1")).head.sha).toBe(before["dev-1"].head.sha);
    expect((await openPull("dev-2")).head.sha).toBe(rebuilt.head.sha);
  }, 60_000);
});

/**
 * `conflicted`: a default branch moved without touching what the pull request changes leaves it alone;
 * once the default branch adds the same file differently (GitHub: not mergeable), it is rebuilt on it once.
 */
describe("rebaseWhen: conflicted", () => {
  const owner = "acme";
  const repo = "lab-1";
  const rest = () => w.users.alice!.rest;
  const openPull = async () => (await rest().pulls.list({ owner, repo, state: "open" })).data[0]!;

  const w = useWorld({
    ".github/porchlight.yml": `rollout:\n  rebaseWhen: conflicted\n  steps:\n    - name: lab\n      variants: [${repo}]\n`,
    ".porchlight/variants/lab.yaml": variant(repo),
    "basens/Kptfile": "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: basens\n",
    "basens/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n",
  });
  beforeAll(async () => {
    await w.forge.createRepo(`acme/${repo}`, { files: { "README.md": `# ${repo}\n` } });
    w.forge.setPermission(`acme/${repo}`, "alice", "write");
    await w.settle();
  }, 60_000);

  it("leaves a pull request that still merges cleanly, and rebuilds it once it conflicts", async () => {
    const { number } = await w.propose("drafts/basens/one", {
      "basens/cm.yaml": 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  v: "1"\n',
    });
    expect(await w.say("bob", number, "/approve")).toContain("Published");
    const opened = await openPull();
    const clone = await w.clone("alice", `acme/${repo}`);

    await clone.push("main", { "README.md": `# ${repo}\n\nbehind, but no conflict\n` });
    await w.settle();
    await sweep(w);
    expect((await openPull()).head.sha).toBe(opened.head.sha);

    // The same file, added differently on the default branch: the pull request no longer merges.
    const moved = await clone.push("main", { "basens/cm.yaml": "# kept by hand\n" });
    await w.settle();
    expect((await rest().pulls.get({ owner, repo, pull_number: opened.number })).data.mergeable).toBe(false);
    await sweep(w);
    const rebuilt = await openPull();
    expect(rebuilt.number).toBe(opened.number);
    const head = (await rest().repos.getBranch({ owner, repo, branch: rebuilt.head.ref })).data.commit;
    expect(head.parents.map((p) => p.sha)).toEqual([moved]);
    expect((await rest().pulls.get({ owner, repo, pull_number: rebuilt.number })).data.mergeable).toBe(true);

    await sweep(w);
    expect((await openPull()).head.sha).toBe(rebuilt.head.sha);
  }, 60_000);
});
