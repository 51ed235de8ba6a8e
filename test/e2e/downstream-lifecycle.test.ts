import { Octokit } from "@octokit/rest";
import { beforeAll, describe, expect, it } from "vitest";
import { parseVariantPullRequestBody } from "../../src/variants/index.js";
import { configMap, kptfile, onChannels, packageVariant } from "../util/krm.js";
import { publishDraft, rpkgAs, sweep, useWorld, type World } from "./harness.js";

const HELLO_KPTFILE = kptfile("hello", onChannels("stable"));
const cm = (v: string) => configMap("hello", { greeting: v });
const VARIANT = packageVariant({ name: "dev", upstream: "hello", repo: "deploy-dev" });

/**
 * Issue 19's story: a downstream package is a package revision like any other. The fan-out branch is
 * a draft of the downstream package, its pull request a proposal; the downstream's maintainer publishes
 * it with `/approve` (merge plus tag `hello/vN`, N the downstream's own), and `rpkg get` lists it.
 */
describe("downstream packages are package revisions (forge over HTTP and git)", () => {
  const owner = "acme";
  const DOWN = "deploy-dev";
  const gh = (user: string) => w.users[user]!.rest;
  const fanoutPulls = async () =>
    (await gh("alice").pulls.list({ owner, repo: DOWN, state: "open" })).data.filter((p) =>
      p.head.ref.startsWith("porchlight/variant/"),
    );
  const tags = async (repo: string) =>
    (await gh("alice").repos.listTags({ owner, repo })).data.map((t) => t.name).sort();
  /** `porchlight rpkg ARGS` in-process, as `user`, against the forge. */
  const rpkg = (user: string, args: string[]) => rpkgAs(w, user, args);
  /** The table's rows without padding. */
  const rows = (table: string) =>
    table
      .trim()
      .split("\n")
      .slice(1)
      .map((l) => l.trim().split(/\s+/).join(" "));
  /** `body` as a comment on #n of the downstream, by `user`; the bot's answer to it. */
  const sayDown = async (user: string, n: number, body: string) => {
    const { data } = await gh(user).issues.createComment({ owner, repo: DOWN, issue_number: n, body });
    await w.settle();
    const comments = (await gh(user).issues.listComments({ owner, repo: DOWN, issue_number: n })).data;
    return comments.find((c) => c.body?.includes(`reply comment=${data.id}`))?.body ?? "";
  };
  let ws = 0;
  const publishUpstream = (greeting: string) =>
    publishDraft(w, `drafts/hello/ws${++ws}`, { "hello/cm.yaml": cm(greeting) });

  const w = useWorld({
    ".porchlight/variants/dev.yaml": VARIANT,
    "hello/Kptfile": HELLO_KPTFILE,
    "hello/cm.yaml": cm("hi"),
  });
  beforeAll(async () => {
    await w.forge.createRepo(`acme/${DOWN}`, { files: { "README.md": `# ${DOWN}\n` } });
    // dana maintains the downstream only: she may read the blueprints, not approve there.
    const { pat } = w.forge.createUser("dana", { pat: true });
    w.users.dana = { pat: pat as string, rest: new Octokit({ baseUrl: w.forge.apiUrl, auth: pat }) };
    w.forge.setPermission(`acme/${DOWN}`, "dana", "write");
    w.forge.setPermission("acme/blueprints", "dana", "read");
    w.forge.setPermission(`acme/${DOWN}`, "alice", "read");
    await w.settle();
  }, 120_000);

  it("publish hello v1 upstream → the fan-out proposal is a Proposed revision in rpkg get of the downstream", async () => {
    await publishUpstream("v1");
    const [pr] = await fanoutPulls();
    expect(pr?.title).toBe("Clone blueprints/hello v1 into hello");
    const got = await rpkg("dana", ["get", `--repository=acme/${DOWN}`]);
    expect(got.code).toBe(0);
    expect(rows(got.stdout)).toEqual([`${DOWN}.hello.dev hello dev 0 false Proposed ${DOWN}`]);
    // -o wide adds where it comes from: the upstream package and the upstream revision it carries.
    const wide = await rpkg("dana", ["get", `--repository=acme/${DOWN}`, "-o", "wide"]);
    expect(wide.stdout.split("\n")[0]).toMatch(/REPOSITORY\s+UPSTREAM\s+UPSTREAMREVISION$/);
    expect(rows(wide.stdout)).toEqual([
      `${DOWN}.hello.dev hello dev 0 false Proposed ${DOWN} acme/blueprints/hello v1`,
    ]);
    const yaml = await rpkg("dana", ["get", `${DOWN}.hello.dev`, `--repository=acme/${DOWN}`, "-o", "yaml"]);
    expect(yaml.stdout).toMatch(
      /upstreamLock:\n\s+type: git\n\s+git:\n\s+repo: \S+acme\/blueprints\.git\n\s+directory: \/hello\n\s+ref: hello\/v1\n\s+commit: [0-9a-f]{40}/,
    );
  }, 120_000);

  it("a reader of the downstream cannot publish it; its maintainer's /approve merges and tags hello/v1 there", async () => {
    const [pr] = await fanoutPulls();
    const refused = await sayDown("alice", pr!.number, "/approve");
    expect(refused).toMatch(/write permission/);
    expect(await tags(DOWN)).toEqual([]);
    const reply = await sayDown("dana", pr!.number, "/approve");
    expect(reply).toContain("Published");
    expect(reply).toContain("hello/v1");
    expect(await tags(DOWN)).toEqual(["hello/v1"]);
    // The management repository's dashboard shows deploy-dev's own revision at once, not at the next sweep.
    const [board] = (
      await gh("alice").issues.listForRepo({ owner, repo: "blueprints", labels: "porchlight/dashboard" })
    ).data;
    expect(board?.body).toMatch(
      /\| deploy-dev\/hello \| `dev` \| [^|]+ \| v1 \| v1 \| v1 \| — \| ✅ up to date/,
    );
    // The upstream's catalog channels stay upstream: the downstream's revisions join its own channels.
    const kf = await gh("dana").repos.getContent({
      owner,
      repo: DOWN,
      path: "hello/Kptfile",
      ref: "hello/v1",
    });
    expect(Buffer.from((kf.data as { content: string }).content, "base64").toString()).not.toContain(
      "porchlight.dev/channels",
    );
    expect((await gh("dana").pulls.get({ owner, repo: DOWN, pull_number: pr!.number })).data.merged).toBe(
      true,
    );
    expect(await fanoutPulls()).toEqual([]);
    // The same command again publishes nothing more: it answers with the revision it is.
    const again = await sayDown("dana", pr!.number, "/approve");
    expect(again).toContain("`hello/v1`");
    expect(await tags(DOWN)).toEqual(["hello/v1"]);
  }, 120_000);

  it("publish v2 upstream → the update proposal carries v1→v2; an approving review makes it hello/v2 downstream; rpkg get lists both", async () => {
    await publishUpstream("v2");
    const [pr] = await fanoutPulls();
    expect(pr?.title).toBe("Update hello from v1 to v2 (blueprints/hello)");
    expect(parseVariantPullRequestBody(pr!.body)).toMatchObject({ from: "v1", to: "v2" });
    // The dashboard: deploy-dev's own revision v1, carrying upstream v1, proposing v2, held for approval.
    const [board] = (
      await gh("alice").issues.listForRepo({ owner, repo: "blueprints", labels: "porchlight/dashboard" })
    ).data;
    expect(board?.body).toMatch(
      /\| deploy-dev\/hello \| `dev` \| [^|]+ \| v1 \| v1 \| v2 \| acme\/deploy-dev#\d+ \| ⏳ waiting for approval: /,
    );
    expect(rows((await rpkg("dana", ["get", `--repository=acme/${DOWN}`])).stdout)).toEqual([
      `${DOWN}.hello.main hello main -1 false Published ${DOWN}`,
      // the variant's first revision keeps its draft's name; its next draft is a revision of its own
      `${DOWN}.hello.dev hello dev 1 true Published ${DOWN}`,
      `${DOWN}.hello.dev-2 hello dev-2 0 false Proposed ${DOWN}`,
    ]);
    // rpkg upgrade works on the package fan-out made: its Kptfile names the upstream, that is enough.
    const upgraded = await rpkg("dana", [
      "upgrade",
      `${DOWN}.hello.dev`,
      "--workspace=up2",
      `--repository=acme/${DOWN}`,
    ]);
    expect(upgraded.stdout).toBe(`${DOWN}.hello.dev upgraded to ${DOWN}.hello.up2\n`);
    const draft = await gh("dana").repos.getContent({
      owner,
      repo: DOWN,
      path: "hello/cm.yaml",
      ref: "drafts/hello/up2",
    });
    expect(Buffer.from((draft.data as { content: string }).content, "base64").toString()).toContain(
      'greeting: "v2"',
    );
    expect((await rpkg("dana", ["del", `${DOWN}.hello.up2`, `--repository=acme/${DOWN}`])).code).toBe(0);
    // This time an approving review publishes it (rpkg approve: test/e2e/fanout-story.test.ts).
    await gh("dana").pulls.createReview({
      owner,
      repo: DOWN,
      pull_number: pr!.number,
      commit_id: pr!.head.sha,
      event: "APPROVE",
    });
    await w.settle();
    expect(await tags(DOWN)).toEqual(["hello/v1", "hello/v2"]);
    expect(rows((await rpkg("dana", ["get", `--repository=acme/${DOWN}`])).stdout)).toEqual([
      `${DOWN}.hello.main hello main -1 false Published ${DOWN}`,
      `${DOWN}.hello.dev hello dev 1 false Published ${DOWN}`,
      `${DOWN}.hello.dev-2 hello dev-2 2 true Published ${DOWN}`,
    ]);
    expect(rows((await rpkg("dana", ["get", `--repository=acme/${DOWN}`, "-o", "wide"])).stdout)).toEqual([
      `${DOWN}.hello.main hello main -1 false Published ${DOWN} acme/blueprints/hello v2`,
      `${DOWN}.hello.dev hello dev 1 false Published ${DOWN} acme/blueprints/hello v1`,
      `${DOWN}.hello.dev-2 hello dev-2 2 true Published ${DOWN} acme/blueprints/hello v2`,
    ]);
    // The sweep after it (a restart's first run) finds everything done and writes nothing; nor do the
    // webhooks of every publish delivered a second time (GitHub's redelivery, a replica's duplicate).
    await sweep(w);
    const before = writes(w);
    const approvals = w.forge.webhooks
      .find("issue_comment", "created")
      .filter((d) => (d.payload as { comment?: { body?: string } }).comment?.body === "/approve");
    expect(approvals.length).toBeGreaterThanOrEqual(3);
    const reviews = w.forge.webhooks.find("pull_request_review", "submitted");
    expect(reviews.length).toBe(1);
    for (const d of [...approvals, ...reviews]) w.forge.webhooks.redeliver(d.id);
    await w.settle();
    expect(writes(w)).toBe(before);
    await sweep(w);
    expect(writes(w)).toBe(before);
    expect(await fanoutPulls()).toEqual([]);
    expect(await tags(DOWN)).toEqual(["hello/v1", "hello/v2"]);
  }, 120_000);

  it("rpkg propose-delete proposes deleting the downstream package; rejected, it is Published again", async () => {
    // (named by its number, as earlier porchlight versions named it: the alias still finds it)
    const proposed = await rpkg("dana", ["propose-delete", `${DOWN}.hello.v2`, `--repository=acme/${DOWN}`]);
    expect(proposed.code).toBe(0);
    await w.settle();
    expect(rows((await rpkg("dana", ["get", `--repository=acme/${DOWN}`])).stdout)).toContain(
      `${DOWN}.hello.dev-2 hello dev-2 2 true DeletionProposed ${DOWN}`,
    );
    expect((await rpkg("dana", ["reject", `${DOWN}.hello.dev-2`, `--repository=acme/${DOWN}`])).code).toBe(0);
    await w.settle();
    expect(rows((await rpkg("dana", ["get", `--repository=acme/${DOWN}`])).stdout)).toEqual([
      `${DOWN}.hello.main hello main -1 false Published ${DOWN}`,
      `${DOWN}.hello.dev hello dev 1 false Published ${DOWN}`,
      `${DOWN}.hello.dev-2 hello dev-2 2 true Published ${DOWN}`,
    ]);
  }, 120_000);
});

/**
 * The bot's writes that change something: not token requests or fetches, nor a reaction GitHub already had
 * (answered 200, not 201: a redelivered comment is acknowledged again, nothing changes).
 */
function writes(w: World): number {
  return w.forge.requestLog
    .filter({})
    .filter(
      (r) =>
        r.method !== "GET" &&
        !r.route.includes("access_tokens") &&
        !r.route.endsWith("git-upload-pack") &&
        !(r.route.endsWith("/reactions") && r.status === 200),
    ).length;
}
