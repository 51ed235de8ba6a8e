import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ApiWorld, apiWorld } from "./world.js";

const REVISIONS = "/apis/porch.kpt.dev/v1alpha1/namespaces/acme/packagerevisions";
const RESOURCES = "/apis/porch.kpt.dev/v1alpha1/namespaces/acme/packagerevisionresources";

/** The operations of Porch's iterative performance test, in its order. */
const OPS = [
  "list",
  "create",
  "update resources",
  "get",
  "propose",
  "get after propose",
  "approve",
  "get after approve",
  "propose-delete",
  "get after propose-delete",
  "delete",
] as const;
type Op = (typeof OPS)[number];

/**
 * Porch's iterative performance test (nephio-project/porch test/e2e/performance) counts how one test
 * package's life costs as a package gets more published revisions beside it. Here the cost is GitHub's
 * budget: the REST requests of the caller's token that GitHub counts (not answered 304; git over HTTP
 * apart), operation by operation, with 2 published revisions of a control package in the repository,
 * then with 8. A write that lists every tag, reads every revision or pages through every pull request
 * shows here as a count that grows.
 */
describe("a package's life through Porch's API costs the caller the same GitHub requests however many revisions its repository holds", () => {
  let w: ApiWorld;
  let published = 0;

  // The repository's own metadata (`GET /repos/{owner}/{repo}`) is left out: the API trusts a token's
  // answer about a repository for a few seconds (src/porch/repo-metadata.ts), so whether an operation
  // asks it again depends on the time since the last, not on the revisions there are.
  const counted = () => spent().length;
  const spent = () =>
    w.forge.requestLog.entries.filter(
      (e) =>
        e.login === "alice" &&
        e.status !== 304 &&
        !e.route.includes(".git/") &&
        e.route !== "/repos/{owner}/{repo}",
    );
  // Operation by operation, the listing of open pull requests is left out too: every reading asks it
  // (conditionally), and which reading first meets a change the operation before made (answered 200, the
  // next ones 304) depends on the order of reads in flight, not on the revisions there are. The budget
  // of a revision published below counts it.
  const countedByOperation = () =>
    spent().filter((e) => !(e.method === "GET" && e.route === "/repos/{owner}/{repo}/pulls")).length;

  const api = async (method: string, path: string, body?: unknown) => {
    const r = await w.request(path, {
      token: w.alice,
      method,
      headers: { "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${r.body}`);
    return JSON.parse(r.body) as {
      metadata: { name: string };
      spec: { lifecycle: string; resources: Record<string, string> };
    };
  };

  const draft = (pkg: string, workspace: string) => ({
    apiVersion: "porch.kpt.dev/v1alpha1",
    kind: "PackageRevision",
    metadata: { namespace: "acme" },
    spec: {
      packageName: pkg,
      workspaceName: workspace,
      repository: "blueprints",
      lifecycle: "Draft",
      tasks: [{ type: "init", init: { description: `${pkg} description` } }],
    },
  });

  /** Proposes `name` and approves it as its author, the bot's checks green between (as the app reports them). */
  const publish = async (name: string) => {
    const got = await api("GET", `${REVISIONS}/${name}`);
    got.spec.lifecycle = "Proposed";
    const proposed = await api("PUT", `${REVISIONS}/${name}`, got);
    await w.greenChecks("acme/blueprints");
    proposed.spec.lifecycle = "Published";
    await api("PUT", `${REVISIONS}/${name}/approval`, proposed);
  };

  /** Brings the control package to `n` published revisions. */
  const controlRevisions = async (n: number) => {
    for (published += 1; published <= n; published++) {
      const made = await api("POST", REVISIONS, draft("control", `v${published}`));
      await publish(made.metadata.name);
    }
    published = n;
  };

  /** One life of the test package, each operation's counted requests. */
  const life = async (): Promise<Record<Op, number>> => {
    const cost = {} as Record<Op, number>;
    // what the writes before changed, read first (a list reads every repository the index holds)
    await api("GET", REVISIONS);
    const measure = async <T>(op: Op, f: () => Promise<T>): Promise<T> => {
      const before = countedByOperation();
      const v = await f();
      cost[op] = countedByOperation() - before;
      return v;
    };
    await measure("list", () => api("GET", REVISIONS));
    const made = await measure("create", () => api("POST", REVISIONS, draft("test", "v1")));
    const name = made.metadata.name;
    const resources = await api("GET", `${RESOURCES}/${name}`);
    resources.spec.resources["README.md"] = "# updated readme";
    await measure("update resources", () => api("PUT", `${RESOURCES}/${name}`, resources));
    let pr = await measure("get", () => api("GET", `${REVISIONS}/${name}`));
    pr.spec.lifecycle = "Proposed";
    await measure("propose", () => api("PUT", `${REVISIONS}/${name}`, pr));
    pr = await measure("get after propose", () => api("GET", `${REVISIONS}/${name}`));
    await w.greenChecks("acme/blueprints");
    pr.spec.lifecycle = "Published";
    await measure("approve", () => api("PUT", `${REVISIONS}/${name}/approval`, pr));
    pr = await measure("get after approve", () => api("GET", `${REVISIONS}/${name}`));
    pr.spec.lifecycle = "DeletionProposed";
    await measure("propose-delete", () => api("PUT", `${REVISIONS}/${name}/approval`, pr));
    await measure("get after propose-delete", () => api("GET", `${REVISIONS}/${name}`));
    await measure("delete", () => api("DELETE", `${REVISIONS}/${name}`));
    return cost;
  };

  beforeAll(async () => {
    w = await apiWorld();
  }, 120_000);
  afterAll(() => w?.stop());

  it("costs the same at 2 and at 8 published revisions, operation by operation, and so does publishing one", async () => {
    await controlRevisions(2);
    // the first life warms what any first request reads (the caller's identity, the registrations)
    await life();
    const atTwo = await life();
    // what the life changed, read first
    await api("GET", REVISIONS);
    let before = counted();
    await controlRevisions(4);
    const publishedAtTwo = (counted() - before) / 2;
    await controlRevisions(6);
    await api("GET", REVISIONS);
    before = counted();
    await controlRevisions(8);
    const publishedAtSix = (counted() - before) / 2;
    const atEight = await life();
    expect(atEight).toEqual(atTwo);
    // a revision published (create, propose, approve, with the gets between) costs what the last did,
    // and at most 7 here (8 while a draft the API had just created or pushed cost a listing of its
    // branch's pull requests at the next reading, to learn what it made an instant before): in Porch's iterative test, where the bot edits the pull requests meanwhile
    // (some of these reads then answer 200, not 304), it stays within 10 — a tenth of the caller's share
    // of GitHub's hourly budget that the test at N = 100 needs. The tag and the draft's deletion go in
    // one git push, which GitHub does not count
    expect(publishedAtSix).toBe(publishedAtTwo);
    expect(publishedAtSix).toBeLessThanOrEqual(7);
    // the approval: the pull request, its checks and reviews, the merge, and the index's listing after
    // the write; the deletion carried out reads no check (a deletion proposal changes no file)
    expect(atEight.approve).toBeLessThanOrEqual(5);
    expect(atEight.delete).toBeLessThanOrEqual(5);
  }, 300_000);
});
