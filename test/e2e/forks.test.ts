import { execFile } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { Octokit } from "@octokit/rest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { configMap, kptfile, NO_PRIVILEGED, topicSet } from "../util/krm.js";
import { commentsOn, startWorld, sweep, type World } from "./harness.js";

const run = promisify(execFile);

/**
 * An outside user forks acme/blueprints and opens pull requests from the fork, as an attacker would,
 * with the operator's exec and container opt-in ON. Every rule of docs/config.md "Forks" is tried here.
 */
const owner = "acme";
const repo = "blueprints";
const KPTFILE = kptfile("basens");
const cm = configMap;
const POLICY = NO_PRIVILEGED;
const NO_POLICY = POLICY.replace(/source: \|[\s\S]*$/, "source: |\n  pass\n");
const CONFIG = `guardrails:
  - name: no-privileged
    image: starlark
    configPath: policies/no-privileged.yaml
functions:
  runtimes: [builtin, exec, container]
`;
const SET = topicSet("edge", "basens", "edge");
/** A pipeline naming an exec function (a program on the app's host) and a container function. */
const untrustedKptfile = (script: string, tag: string) =>
  `${KPTFILE}pipeline:\n  mutators:\n    - exec: ${script} ${tag}\n    - image: example.com/evil/steal:v1\n`;

describe("pull requests from forks end to end (forge over HTTP and git)", () => {
  let w: World;
  let mallory: { pat: string; rest: Octokit };
  let fork: { dir: string; git: (...args: string[]) => Promise<string> };
  /** Where the untrusted functions would leave their marks, and a host secret outside every package. */
  let marks: string;
  let secretFile: string;
  const savedPath = process.env.PATH;
  const SECRET = `S3CRET-${Math.random().toString(36).slice(2)}`;
  const alice = () => w.users.alice!.rest;
  const checks = async (sha: string) =>
    Object.fromEntries(
      (await alice().checks.listForRef({ owner, repo, ref: sha })).data.check_runs.map((r) => [
        r.name,
        {
          conclusion: r.conclusion,
          text: `${r.output.title ?? ""}\n${r.output.summary ?? ""}\n${r.output.text ?? ""}`,
        },
      ]),
    );
  const comments = (n: number) => commentsOn(w, n);
  const say = async (rest: Octokit, n: number, body: string) => {
    const { data } = await rest.issues.createComment({ owner, repo, issue_number: n, body });
    await w.settle();
    return (await comments(n)).find((c) => c.includes(`reply comment=${data.id}`)) ?? "";
  };
  /** Commits `files` (text, a Buffer, or `{ symlink }`) on a new fork branch from main, pushes, opens the PR. */
  const forkPull = async (
    branch: string,
    files: Record<string, string | Buffer | { symlink: string }>,
  ): Promise<{ number: number; sha: string }> => {
    await fork.git("checkout", "--quiet", "-B", branch, "origin/main");
    for (const [path, content] of Object.entries(files)) {
      const full = join(fork.dir, path);
      mkdirSync(dirname(full), { recursive: true });
      rmSync(full, { force: true });
      if (typeof content === "object" && !Buffer.isBuffer(content)) symlinkSync(content.symlink, full);
      else writeFileSync(full, content);
    }
    await fork.git("add", "-A");
    await fork.git("commit", "--quiet", "-m", `mallory: ${branch}`);
    await fork.git("push", "--quiet", "origin", `HEAD:refs/heads/${branch}`);
    const sha = await fork.git("rev-parse", "HEAD");
    const { data } = await mallory.rest.pulls.create({
      owner,
      repo,
      head: `mallory:${branch}`,
      base: "main",
      title: `mallory's ${branch}`,
    });
    await w.settle();
    return { number: data.number, sha };
  };
  const forkRefs = async () =>
    (await run("git", ["ls-remote", w.forge.cloneUrl("mallory/blueprints")])).stdout.trim();

  beforeAll(async () => {
    marks = mkdtempSync(join(tmpdir(), "porchlight-fork-marks-"));
    // The exec function: a program on the host that leaves a mark and passes its input through.
    writeFileSync(join(marks, "steal.sh"), `#!/bin/sh\ntouch "${marks}/exec-$1"\ncat\n`);
    chmodSync(join(marks, "steal.sh"), 0o755);
    // The container engine: a stand-in `docker` that answers `info` and leaves a mark for any `run`.
    mkdirSync(join(marks, "bin"));
    writeFileSync(
      join(marks, "bin", "docker"),
      `#!/bin/sh\nif [ "$1" = info ]; then exit 0; fi\ntouch "${marks}/container-ran"\ncat\n`,
    );
    chmodSync(join(marks, "bin", "docker"), 0o755);
    process.env.PATH = `${join(marks, "bin")}:${process.env.PATH ?? ""}`;
    // the stand-in's registry, which resolves to nothing here: the egress policy refuses a name it cannot
    // resolve, unless the operator lists the endpoint (as one lists a registry only the engine reaches)
    process.env.PORCHLIGHT_EGRESS_ALLOW = "example.com:443";
    secretFile = join(marks, "secret.yaml");
    // Were it read, the base's guardrail would name it in the check: `ConfigMap <SECRET> asks for privileged mode`.
    writeFileSync(secretFile, cm(SECRET.toLowerCase(), { privileged: "true" }));

    w = await startWorld(
      {
        ".github/porchlight.yml": CONFIG,
        "policies/no-privileged.yaml": POLICY,
        ".porchlight/variants/fleet.yaml": SET,
        "basens/Kptfile": KPTFILE,
        "basens/cm.yaml": cm("settings", { a: "1" }),
      },
      { operatorRuntimes: ["builtin", "exec", "container"], public: true },
    );
    await w.forge.createRepo("acme/edge-01", { files: { "README.md": "# edge-01\n" }, topics: ["edge"] });
    w.forge.setPermission("acme/edge-01", "alice", "write");
    const made = w.forge.createUser("mallory", { pat: true });
    mallory = { pat: made.pat!, rest: new Octokit({ baseUrl: w.forge.apiUrl, auth: made.pat! }) };
    const { data } = await mallory.rest.repos.createFork({ owner, repo });
    expect(data).toMatchObject({
      full_name: "mallory/blueprints",
      fork: true,
      parent: { full_name: "acme/blueprints" },
    });
    // The fork asks to be a downstream of every published revision, as a PackageVariantSet target would.
    await mallory.rest.repos.replaceAllTopics({ owner: "mallory", repo, names: ["edge"] });
    const dir = join(marks, "fork");
    const env = {
      ...process.env,
      GIT_AUTHOR_NAME: "mallory",
      GIT_AUTHOR_EMAIL: "m@x",
      GIT_COMMITTER_NAME: "mallory",
      GIT_COMMITTER_EMAIL: "m@x",
    };
    await run("git", ["clone", "--quiet", w.forge.cloneUrl("mallory/blueprints", mallory.pat), dir], { env });
    fork = {
      dir,
      git: async (...args) => (await run("git", args, { cwd: dir, env, maxBuffer: 1 << 20 })).stdout.trim(),
    };
    await w.settle();
  }, 120_000);
  afterAll(async () => {
    await w?.stop();
    // The stand-in docker leaves with the file: a later file in this worker finds none.
    process.env.PATH = savedPath;
    delete process.env.PORCHLIGHT_EGRESS_ALLOW;
    rmSync(marks, { recursive: true, force: true });
  });

  let untrusted: { number: number; sha: string };

  it("never runs a fork's exec or container functions, with the operator's opt-in on; the checks fail and say why", async () => {
    // A draft-like branch name in the fork changes nothing: the fork's branch is not a draft here.
    untrusted = await forkPull("drafts/basens/evil", {
      "basens/Kptfile": untrustedKptfile(join(marks, "steal.sh"), "fork"),
    });
    const runs = await checks(untrusted.sha);
    expect(runs["porchlight/render"]?.conclusion).toBe("failure");
    expect(runs["porchlight/render"]?.text).toContain(
      "comes from a fork and its pipeline needs exec and container functions, which porchlight never runs for forks",
    );
    expect(existsSync(join(marks, "exec-fork"))).toBe(false);
    expect(existsSync(join(marks, "container-ran"))).toBe(false);
    // The bot wrote nothing to the fork's branch (no render commit).
    expect(await forkRefs()).toContain(`${untrusted.sha}\trefs/heads/drafts/basens/evil`);
    // The second time (the fork pushes again: synchronize), the same.
    await fork.git("commit", "--quiet", "--allow-empty", "-m", "again");
    await fork.git("push", "--quiet", "origin", "HEAD:refs/heads/drafts/basens/evil");
    const again = await fork.git("rev-parse", "HEAD");
    await w.forge.waitFor(
      () =>
        w.forge.webhooks
          .find("pull_request", "synchronize")
          .some((d) => (d.payload as { after?: string }).after === again),
      "the synchronize of the second push",
    );
    await w.settle();
    const rerun = await checks(again);
    expect(rerun["porchlight/render"]?.conclusion).toBe("failure");
    expect(rerun["porchlight/render"]?.text).toContain("never runs for forks");
    expect(existsSync(join(marks, "exec-fork"))).toBe(false);
    expect(existsSync(join(marks, "container-ran"))).toBe(false);
    untrusted = { number: untrusted.number, sha: again };
  }, 60_000);

  it("(the same pipeline pushed to a draft of the base repository does run: the marks above would show it)", async () => {
    const clone = await w.clone("alice");
    await clone.push("drafts/basens/trusted", {
      "basens/Kptfile": untrustedKptfile(join(marks, "steal.sh"), "trusted"),
    });
    await w.settle();
    expect(existsSync(join(marks, "exec-trusted"))).toBe(true);
    expect(existsSync(join(marks, "container-ran"))).toBe(true);
    await alice().git.deleteRef({ owner, repo, ref: "heads/drafts/basens/trusted" });
    await w.settle();
  }, 60_000);

  it("refuses /approve, /render, /promote and /adopt from the fork's author, with the reason", async () => {
    const reply = await say(mallory.rest, untrusted.number, "/approve\n/render\n/promote stable\n/adopt");
    for (const verb of ["approve", "render", "promote", "adopt"]) {
      expect(reply).toContain(`@mallory, \`/${verb}\` needs write permission on this repository`);
    }
    const pr = (await alice().pulls.get({ owner, repo, pull_number: untrusted.number })).data;
    expect(pr.merged).toBe(false);
  }, 60_000);

  let benign: { number: number; sha: string };

  it("a maintainer's approval of a green fork pull request publishes nothing, and /approve says to /adopt it", async () => {
    benign = await forkPull("drafts/basens/nice", { "basens/cm.yaml": cm("settings", { a: "2" }) });
    const runs = await checks(benign.sha);
    expect([runs["porchlight/render"]?.conclusion, runs["porchlight/guardrails"]?.conclusion]).toEqual([
      "success",
      "success",
    ]);
    await w.users.bob!.rest.pulls.createReview({ owner, repo, pull_number: benign.number, event: "APPROVE" });
    await w.settle();
    const reply = await say(alice(), benign.number, "/approve\n/reject\n/render");
    expect(reply).toContain(
      "`/approve` refused: #" +
        benign.number +
        " comes from the fork `mallory/blueprints`, and a fork's branch is not a draft of this repository",
    );
    expect(reply).toContain("say `/adopt` to copy its package changes into a draft here");
    expect(reply).toContain("`/reject` refused");
    expect(reply).toContain("`/render` refused");
    const pr = (await alice().pulls.get({ owner, repo, pull_number: benign.number })).data;
    expect([pr.merged, pr.state]).toEqual([false, "open"]);
    const tags = await alice().git.listMatchingRefs({ owner, repo, ref: "tags/" });
    expect(tags.data).toEqual([]);
  }, 60_000);

  let adopted: number;

  it("/adopt by a maintainer copies the package changes into a proposed draft, which publishes normally", async () => {
    const reply = await say(alice(), benign.number, "/adopt");
    const branch = `drafts/basens/fork-pr-${benign.number}`;
    expect(reply).toContain(`draft \`${branch}\``);
    const proposals = (await alice().pulls.list({ owner, repo, head: `acme:${branch}` })).data;
    expect(proposals).toHaveLength(1);
    adopted = proposals[0]!.number;
    expect(proposals[0]!.head.repo?.full_name).toBe("acme/blueprints");
    const content = await alice().repos.getContent({ owner, repo, path: "basens/cm.yaml", ref: branch });
    expect(Buffer.from((content.data as { content: string }).content, "base64").toString()).toContain(
      'a: "2"',
    );
    // Said again: the same draft and proposal, nothing new.
    await say(alice(), benign.number, "/adopt");
    expect(
      (await alice().pulls.list({ owner, repo, state: "all" })).data.filter((p) => p.head.ref === branch),
    ).toHaveLength(1);
    const approved = await say(w.users.bob!.rest, adopted, "/approve");
    expect(approved).toContain("Published **basens** as `basens/v1`");
  }, 120_000);

  it("fan-out and the dashboard never write to the fork, though it carries the selected topic", async () => {
    const edge = (await alice().pulls.list({ owner, repo: "edge-01", state: "open" })).data;
    expect(edge.map((p) => p.title)).toEqual(["Clone blueprints/basens v1 into basens"]);
    // Every request that could change the fork (REST writes, git pushes), by anyone but its owner.
    const writes = w.forge.requestLog.entries.filter(
      (e) =>
        e.path.includes("/mallory/") &&
        e.login !== "mallory" &&
        (e.route.endsWith("git-receive-pack") ||
          (e.method !== "GET" && !e.route.endsWith("git-upload-pack"))),
    );
    expect(writes).toEqual([]);
    expect((await mallory.rest.pulls.list({ owner: "mallory", repo, state: "all" })).data).toEqual([]);
    expect((await mallory.rest.issues.listForRepo({ owner: "mallory", repo, state: "all" })).data).toEqual(
      [],
    );
    const refs = await forkRefs();
    expect(refs).not.toMatch(/porchlight\/|drafts\/basens\/fork-pr/);
  }, 60_000);

  it("a fork's pull request merged by hand is no publish: the sweep tags nothing and fans nothing out", async () => {
    const before = (await alice().git.listMatchingRefs({ owner, repo, ref: "tags/" })).data.length;
    const pr = (await alice().pulls.get({ owner, repo, pull_number: benign.number })).data;
    await alice().pulls.merge({ owner, repo, pull_number: benign.number, sha: pr.head.sha });
    await w.settle();
    await sweep(w);
    const tags = (await alice().git.listMatchingRefs({ owner, repo, ref: "tags/" })).data;
    expect(tags).toHaveLength(before);
  }, 60_000);

  it("checks a fork's pull request with the base's config and policies, never the ones it brings", async () => {
    const pr = await forkPull("loosen", {
      ".github/porchlight.yml": "guardrails: []\nfunctions:\n  runtimes: [builtin, exec, container]\n",
      "policies/no-privileged.yaml": NO_POLICY,
      "basens/privileged.yaml": cm("escalate", { privileged: "true" }),
    });
    const runs = await checks(pr.sha);
    expect(runs["porchlight/guardrails"]?.conclusion).toBe("failure");
    expect(runs["porchlight/guardrails"]?.text).toContain("ConfigMap escalate asks for privileged mode");
    expect(w.forge.errors).toEqual([]);
  }, 60_000);

  it("a 50 MB file in a fork's package: the limits hold, the checks name the limit, nothing is read", async () => {
    const pr = await forkPull("big", { "basens/big.bin": Buffer.alloc(50 * 1024 * 1024) });
    const runs = await checks(pr.sha);
    expect(runs["porchlight/render"]?.conclusion).toBe("failure");
    expect(runs["porchlight/render"]?.text).toContain("per package (`packageBytes`)");
    expect(runs["porchlight/render"]?.text).toContain("PORCHLIGHT_MAX_PACKAGE_BYTES");
    expect(runs["porchlight/guardrails"]?.conclusion).toBe("failure");
    expect(w.forge.errors).toEqual([]);
  }, 120_000);

  it("reads nothing outside the package through symlinks: the checks name each link", async () => {
    const pr = await forkPull("symlinks", {
      "basens/leak.yaml": { symlink: secretFile },
      "basens/up.yaml": { symlink: "../policies/no-privileged.yaml" },
    });
    const runs = await checks(pr.sha);
    for (const name of ["porchlight/render", "porchlight/guardrails"]) {
      expect(runs[name]?.conclusion).toBe("failure");
      expect(runs[name]?.text).toContain(
        "`basens/leak.yaml`, `basens/up.yaml` are symbolic links; porchlight never follows links",
      );
    }
    const everything = [...Object.values(runs).map((r) => r.text), ...(await comments(pr.number))].join("\n");
    expect(everything.toLowerCase()).not.toContain(SECRET.toLowerCase());
    expect(w.forge.errors).toEqual([]);
  }, 60_000);

  it("a symbolic link in a same-repository proposal is named as a link, not refused as an unparsable resource", async () => {
    const clone = await w.clone("alice");
    await clone.git("checkout", "--quiet", "-B", "drafts/basens/linked", "origin/main");
    symlinkSync("../policies/no-privileged.yaml", join(clone.dir, "basens/up.yaml"));
    symlinkSync("../README.md", join(clone.dir, "basens/README.md"));
    await clone.git("add", "-A");
    await clone.git("commit", "--quiet", "-m", "link a policy in");
    await clone.git("push", "--quiet", "origin", "HEAD:refs/heads/drafts/basens/linked");
    const sha = await clone.git("rev-parse", "HEAD");
    await alice().pulls.create({ owner, repo, head: "drafts/basens/linked", base: "main", title: "linked" });
    await w.settle();
    const render = (await checks(sha))["porchlight/render"];
    expect(render?.conclusion).toBe("failure");
    expect(render?.text).toContain(
      "`basens/up.yaml` is a symbolic link; porchlight reads a package's files from git, where a link holds only the path it points to, and never follows links (kpt skips them): replace each link with the file it stands for",
    );
    // Only the YAML link is named (nothing reads the README), and not in kpt's reader's words.
    expect(render?.text).not.toContain("basens/README.md");
    expect(render?.text).not.toContain("wrong node kind");
    expect(w.forge.errors).toEqual([]);
  }, 60_000);

  it("/adopt of a fork whose pipeline has exec and container functions runs neither; a maintainer's approving review does", async () => {
    for (const mark of ["exec-adopted", "container-ran"]) rmSync(join(marks, mark), { force: true });
    const script = join(marks, "steal.sh");
    const pr = await forkPull("adopt-exec", { "basens/Kptfile": untrustedKptfile(script, "adopted") });
    const reply = await say(alice(), pr.number, "/adopt");
    expect(existsSync(join(marks, "exec-adopted"))).toBe(false);
    expect(existsSync(join(marks, "container-ran"))).toBe(false);
    const branch = `drafts/basens/fork-pr-${pr.number}`;
    expect(reply).toContain(`draft \`${branch}\``);
    expect(reply).toContain(
      `was rendered with builtin functions only: \`${script} adopted\`, \`example.com/evil/steal:v1\` did not run`,
    );
    const [draft] = (await alice().pulls.list({ owner, repo, head: `acme:${branch}` })).data;
    expect(draft?.head.repo?.full_name).toBe("acme/blueprints");
    const waiting = await checks(draft!.head.sha);
    expect(waiting["porchlight/render"]?.conclusion).toBe("action_required");
    expect(waiting["porchlight/render"]?.text).toContain(
      "once someone with write permission approves the proposal",
    );
    // Neither the adopt, the proposal's check, nor a sweep ran them.
    await sweep(w);
    expect(existsSync(join(marks, "exec-adopted"))).toBe(false);
    expect(existsSync(join(marks, "container-ran"))).toBe(false);
    // /approve publishes nothing while they wait.
    expect(await say(w.users.bob!.rest, draft!.number, "/approve")).toContain(
      "porchlight/render is not green (action_required)",
    );

    // A maintainer's approving review vouches for the content: the functions run, the checks turn green.
    const { data: review } = await w.users.bob!.rest.pulls.createReview({
      owner,
      repo,
      pull_number: draft!.number,
      event: "APPROVE",
      commit_id: draft!.head.sha,
    });
    await w.settle();
    expect(existsSync(join(marks, "exec-adopted"))).toBe(true);
    expect(existsSync(join(marks, "container-ran"))).toBe(true);
    const answer = (await comments(draft!.number)).find((c) =>
      c.includes(`porchlight:publish review=${review.id}`),
    );
    expect(answer).toContain(
      "@bob's approval vouches for this draft's adopted content, so the functions held back ran",
    );
    const now = (await alice().pulls.get({ owner, repo, pull_number: draft!.number })).data;
    const ran = await checks(now.merged ? draft!.head.sha : now.head.sha);
    expect(ran["porchlight/render"]?.conclusion).toBe("success");
  }, 300_000);
});
