import { execFile } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { renderCommitMessage } from "../../../src/lifecycle/render-commit.js";
import { rows, useRpkgWorld } from "./world.js";

interface PulledMetadata {
  metadata: { resourceVersion: string };
}

const git = (cwd: string, ...args: string[]) =>
  promisify(execFile)("git", args, {
    cwd,
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: "porchlight[bot]",
      GIT_AUTHOR_EMAIL: "bot@example.com",
      GIT_COMMITTER_NAME: "porchlight[bot]",
      GIT_COMMITTER_EMAIL: "bot@example.com",
    },
  });

const R = "--repository=acme/blueprints";

describe("rpkg init, get, pull, push, copy, del against the forge", () => {
  const w = useRpkgWorld();

  it("lists nothing in a repository without packages", async () => {
    const r = await w.rpkg(w.alice, ["get", R]);
    expect(r).toMatchObject({ code: 0, stdout: "" });
    expect(r.stderr).toBe("No package revisions found in acme/blueprints.\n");
    // Progress lines only with -v (or on a terminal): porchctl's stderr carries failures alone.
    const verbose = await w.rpkg(w.alice, ["get", R, "-v"]);
    expect(verbose.stderr).toContain("Reading package revisions of acme/blueprints: done (0 found)\n");
    const tty = await w.rpkg(w.alice, ["get", R], { tty: true });
    expect(tty.stderr).toContain("\r\x1b[2K✔ Reading package revisions of acme/blueprints (0 found)\n");
  });

  it("init creates a draft branch with the files kpt pkg init writes", async () => {
    const r = await w.rpkg(w.alice, [
      "init",
      "apps/web",
      R,
      "--workspace=first",
      "--description=the web app",
      "--keywords=a,b",
    ]);
    expect(r.stderr).not.toContain("failed");
    expect(r).toMatchObject({ code: 0, stdout: "blueprints.apps.web.first created\n" });
    const get = await w.rpkg(w.alice, ["get", R]);
    expect(rows(get.stdout)).toEqual(["blueprints.apps.web.first apps/web first 0 false Draft blueprints"]);
    expect(get.stdout.split("\n")[0]).toMatch(
      /^NAME\s+PACKAGE\s+WORKSPACENAME\s+REVISION\s+LATEST\s+LIFECYCLE\s+REPOSITORY$/,
    );
  });

  it("refuses a second init of the same package, naming what to do", async () => {
    const r = await w.rpkg(w.alice, ["init", "apps/web", R, "--workspace=second"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      'Error: Internal error occurred: package "apps/web" already exists in repository "blueprints" \n',
    );
    // what to do, under -v
    const verbose = await w.rpkg(w.alice, ["init", "apps/web", R, "--workspace=second", "-v"]);
    expect(verbose.stderr).toContain("make a new revision of it with `porchlight rpkg copy`");
  });

  it("get --show-kptfile prints the revision's root Kptfile as it is in git, and refuses what porchctl refuses", async () => {
    const shown = await w.rpkg(w.alice, ["get", "--show-kptfile", "blueprints.apps.web.first", R]);
    expect(shown.code).toBe(0);
    const gh = w.octokit(w.alice);
    const file = await gh.rest.repos.getContent({
      owner: "acme",
      repo: "blueprints",
      path: "apps/web/Kptfile",
      ref: "drafts/apps/web/first",
    });
    expect(shown.stdout).toBe(
      Buffer.from((file.data as { content: string }).content, "base64").toString("utf8"),
    );
    expect(shown.stdout).toContain("description: the web app");
    expect(await w.rpkg(w.alice, ["get", "--show-kptfile", R])).toEqual({
      code: 1,
      stdout: "",
      stderr: "error: --show-kptfile requires exactly one package revision name as an argument\n",
    });
    const named = await w.rpkg(w.alice, [
      "get",
      "--show-kptfile",
      "--name=x",
      "blueprints.apps.web.first",
      R,
    ]);
    expect(named.stderr).toBe(
      "error: --show-kptfile cannot be combined with --name, --revision, or --workspace\n",
    );
    const all = await w.rpkg(w.alice, [
      "get",
      "--show-kptfile",
      "--all-namespaces",
      "blueprints.apps.web.first",
      R,
    ]);
    expect(all.stderr).toBe("error: --show-kptfile cannot be combined with --all-namespaces\n");
  });

  it("get -o yaml and -o json print PackageRevision objects", async () => {
    const y = await w.rpkg(w.alice, ["get", R, "-o", "yaml", "blueprints.apps.web.first"]);
    expect(y.code).toBe(0);
    const obj = parse(y.stdout);
    expect(obj).toMatchObject({
      apiVersion: "porch.kpt.dev/v1alpha1",
      kind: "PackageRevision",
      metadata: { name: "blueprints.apps.web.first", namespace: "acme" },
      spec: {
        packageName: "apps/web",
        workspaceName: "first",
        repository: "blueprints",
        lifecycle: "Draft",
      },
    });
    // unpublished: no revision, as Porch's object omits it (custom columns print <none>)
    expect(obj.spec.revision).toBeUndefined();
    expect(obj.metadata.annotations["porchlight.dev/ref"]).toBe("refs/heads/drafts/apps/web/first");
    const j = await w.rpkg(w.alice, ["get", R, "--output=json"]);
    const list = JSON.parse(j.stdout);
    expect(list.kind).toBe("List");
    expect(list.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual([
      "blueprints.apps.web.first",
    ]);
  });

  it("pull writes the files and the revision metadata; push replaces the draft's files", async () => {
    const dir = join(w.tmp, "web");
    const pull = await w.rpkg(w.alice, ["pull", "blueprints.apps.web.first", dir, R]);
    expect(pull).toMatchObject({ code: 0 });
    expect(readFileSync(join(dir, "Kptfile"), "utf8")).toContain("description: the web app");
    expect(readFileSync(join(dir, "README.md"), "utf8")).toContain("# web");
    expect(existsSync(join(dir, ".KptRevisionMetadata"))).toBe(true);

    writeFileSync(
      join(dir, "cm.yaml"),
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\ndata:\n  a: b\n",
    );
    const push = await w.rpkg(w.alice, ["push", "drafts/apps/web/first", dir, R]);
    expect(push).toMatchObject({ code: 0, stdout: "blueprints.apps.web.first pushed\n" });
    // The folder's metadata now names the pushed commit: a second edit pushes on top of it.
    writeFileSync(
      join(dir, "cm.yaml"),
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\ndata:\n  a: b\n  twice: yes\n",
    );
    const second = await w.rpkg(w.alice, ["push", "drafts/apps/web/first", dir, R]);
    expect(second).toMatchObject({ code: 0, stdout: "blueprints.apps.web.first pushed\n" });
    writeFileSync(
      join(dir, "cm.yaml"),
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\ndata:\n  a: b\n",
    );
    expect((await w.rpkg(w.alice, ["push", "drafts/apps/web/first", dir, R])).code).toBe(0);

    const again = await w.rpkg(w.alice, ["pull", "blueprints.apps.web.first", R]);
    const list = parse(again.stdout);
    expect(list.kind).toBe("ResourceList");
    const paths = list.items.map(
      (i: { metadata: { annotations: Record<string, string> } }) =>
        i.metadata.annotations["config.kubernetes.io/path"],
    );
    expect(paths).toEqual([".KptRevisionMetadata", "Kptfile", "cm.yaml", "package-context.yaml"]);
  });

  it("refuses a push from a stale pull, and pushes a ResourceList from stdin keeping README.md", async () => {
    const stale = join(w.tmp, "stale");
    await w.rpkg(w.alice, ["pull", "blueprints.apps.web.first", stale, R]);
    const fresh = join(w.tmp, "fresh");
    await w.rpkg(w.bob, ["pull", "blueprints.apps.web.first", fresh, R]);
    writeFileSync(join(fresh, "extra.yaml"), "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: extra\n");
    expect((await w.rpkg(w.bob, ["push", "blueprints.apps.web.first", fresh, R])).code).toBe(0);
    writeFileSync(join(stale, "cm.yaml"), "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\n");
    const refused = await w.rpkg(w.alice, ["push", "blueprints.apps.web.first", stale, R]);
    expect(refused.code).toBe(1);
    // Porch's optimistic-lock refusal, word for word
    expect(refused.stderr).toBe(
      'Error: Internal error occurred: Operation cannot be fulfilled on packagerevisionresources.porch.kpt.dev "blueprints.apps.web.first": the object has been modified; please apply your changes to the latest version and try again \n',
    );

    const rl = (await w.rpkg(w.alice, ["pull", "blueprints.apps.web.first", R])).stdout.replace(
      "a: b",
      "a: c",
    );
    const push = await w.rpkg(w.alice, ["push", "blueprints.apps.web.first", "-", R], { stdin: rl });
    expect(push).toMatchObject({ code: 0, stdout: "blueprints.apps.web.first pushed\n" });
    const dir = join(w.tmp, "after-stdin");
    await w.rpkg(w.alice, ["pull", "blueprints.apps.web.first", dir, R]);
    expect(readFileSync(join(dir, "cm.yaml"), "utf8")).toContain("a: c");
    expect(existsSync(join(dir, "README.md"))).toBe(true);
    expect(readFileSync(join(dir, "cm.yaml"), "utf8")).not.toContain("config.kubernetes.io/path");
  });

  it("a push pulled before the bot rendered that version goes on top of the render; another writer's commit still refuses it", async () => {
    const dir = join(w.tmp, "before-render");
    await w.rpkg(w.alice, ["pull", "blueprints.apps.web.first", dir, R]);
    const pulledAt = (parse(readFileSync(join(dir, ".KptRevisionMetadata"), "utf8")) as PulledMetadata)
      .metadata.resourceVersion;
    // the bot's render of that version lands on the draft: a commit naming it in its Porchlight-Render trailer
    const clone = join(w.tmp, "render-clone");
    await git(
      w.tmp,
      "clone",
      "-q",
      "-b",
      "drafts/apps/web/first",
      w.forge.cloneUrl("acme/blueprints", w.bot),
      clone,
    );
    writeFileSync(
      join(clone, "apps/web/rendered.yaml"),
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: rendered\n",
    );
    await git(clone, "add", ".");
    await git(clone, "commit", "-q", "-m", renderCommitMessage("apps/web", pulledAt));
    await git(clone, "push", "-q", "origin", "HEAD");
    writeFileSync(
      join(dir, "cm.yaml"),
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\ndata:\n  after: render\n",
    );
    const pushed = await w.rpkg(w.alice, ["push", "blueprints.apps.web.first", dir, R]);
    expect(pushed).toMatchObject({ code: 0, stdout: "blueprints.apps.web.first pushed\n" });
    const after = join(w.tmp, "after-render");
    await w.rpkg(w.alice, ["pull", "blueprints.apps.web.first", after, R]);
    expect(readFileSync(join(after, "cm.yaml"), "utf8")).toContain("after: render");

    // a person's commit on the same version is another writer: the push pulled before it is refused
    const stale = join(w.tmp, "before-person");
    await w.rpkg(w.alice, ["pull", "blueprints.apps.web.first", stale, R]);
    await git(clone, "pull", "-q", "--ff-only");
    writeFileSync(
      join(clone, "apps/web/person.yaml"),
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: person\n",
    );
    await git(clone, "add", ".");
    await git(clone, "commit", "-q", "-m", "a person's change");
    await git(clone, "push", "-q", "origin", "HEAD");
    writeFileSync(join(stale, "cm.yaml"), "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\n");
    expect((await w.rpkg(w.alice, ["push", "blueprints.apps.web.first", stale, R])).code).toBe(1);
  });

  it("pull to stdout is porchctl's list (no indentation annotation), and pull | push leaves wide lists as they are", async () => {
    const dir = join(w.tmp, "wide-lists");
    await w.rpkg(w.alice, ["pull", "blueprints.apps.web.first", dir, R]);
    const wide = "apiVersion: v1\nkind: List\nmetadata:\n  name: wide\nitems:\n  - a\n  - b\n";
    writeFileSync(join(dir, "wide.yaml"), wide);
    expect((await w.rpkg(w.alice, ["push", "blueprints.apps.web.first", dir, R])).code).toBe(0);
    const rl = (await w.rpkg(w.alice, ["pull", "blueprints.apps.web.first", R])).stdout;
    expect(rl).not.toContain("seqindent");
    const push = await w.rpkg(w.alice, ["push", "blueprints.apps.web.first", "-", R], { stdin: rl });
    expect(push).toMatchObject({ code: 0, stdout: "blueprints.apps.web.first pushed\n" });
    const back = join(w.tmp, "wide-back");
    await w.rpkg(w.alice, ["pull", "blueprints.apps.web.first", back, R]);
    expect(readFileSync(join(back, "wide.yaml"), "utf8")).toBe(wide);
  });

  it("names a missing draft and how to list drafts", async () => {
    const r = await w.rpkg(w.alice, ["pull", "drafts/apps/web/nope", R]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("no draft revision apps/web/nope in acme/blueprints");
    expect(r.stderr).toContain("porchlight rpkg get --repository acme/blueprints");
  });

  it("a mistyped revision name gets porchctl's not-found line and, at a terminal, the name meant", async () => {
    // a script reading stderr gets porchctl's bytes alone (Porch's CLI suite compares them)
    expect((await w.rpkg(w.alice, ["pull", "blueprints.apps.web.frist", R])).stderr).toBe(
      'Error: packagerevisions.porch.kpt.dev "blueprints.apps.web.frist" not found \n',
    );
    const tty = { tty: true };
    const pull = await w.rpkg(w.alice, ["pull", "blueprints.apps.web.frist", R], tty);
    expect(pull).toMatchObject({
      code: 1,
      stderr:
        'Error: packagerevisions.porch.kpt.dev "blueprints.apps.web.frist" not found \n  did you mean blueprints.apps.web.first?\n',
    });
    const get = await w.rpkg(w.alice, ["get", "blueprints.aps.web.first", R], tty);
    // (the terminal's progress line comes first)
    expect(get.stderr).toContain(
      "Error: the server could not find the requested resource (get packagerevisions.porch.kpt.dev blueprints.aps.web.first) \n  did you mean blueprints.apps.web.first?\n",
    );
    // a draft branch, too; nothing is guessed for a name far from every revision's
    const draft = await w.rpkg(w.alice, ["pull", "drafts/apps/web/firts", R], tty);
    expect(draft.stderr).toContain("\n  did you mean drafts/apps/web/first?\n");
    const far = await w.rpkg(w.alice, ["pull", "blueprints.something.else", R], tty);
    expect(far.stderr).toBe('Error: packagerevisions.porch.kpt.dev "blueprints.something.else" not found \n');
  });

  it("copy refuses an unpublished source", async () => {
    const r = await w.rpkg(w.alice, ["copy", "blueprints.apps.web.first", "--workspace=next", R]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("only a published revision can be copied");
  });

  it("del removes a draft and its branch", async () => {
    await w.rpkg(w.alice, ["init", "tmp", R, "--workspace=w1"]);
    const del = await w.rpkg(w.alice, ["del", "blueprints.tmp.w1", "blueprints.tmp.missing", R]);
    expect(del.code).toBe(1);
    expect(del.stdout).toBe("blueprints.tmp.w1 deleted\n");
    expect(del.stderr).toContain(
      'blueprints.tmp.missing failed (packagerevisions.porch.kpt.dev "blueprints.tmp.missing" not found)',
    );
    const get = await w.rpkg(w.alice, ["get", R, "--name=tmp"]);
    expect(get.stdout).toBe("");
  });

  it("usage errors exit 2 and a missing token exits 1", async () => {
    expect((await w.rpkg(w.alice, ["init", R])).code).toBe(2);
    expect((await w.rpkg(w.alice, ["get", R, "--bogus"])).code).toBe(2);
    expect((await w.rpkg(w.alice, ["frobnicate"])).code).toBe(2);
    expect((await w.rpkg(w.alice, ["get"])).code).toBe(2);
    expect((await w.rpkg(w.alice, ["get", "--repository=not-a-repo"])).code).toBe(2);
    expect((await w.rpkg("", ["get", R])).code).toBe(1);
  });

  it("waits out GitHub's secondary rate limit instead of failing", async () => {
    const pulls = { method: "POST", route: "/repos/{owner}/{repo}/pulls" };
    const before = w.forge.requestLog.count(pulls);
    // retry-after: 1 (0 reads as absent to Octokit's throttling, which then waits its fallback minute).
    w.forge.rateLimit.secondary({ everyNthMutation: 1, retryAfter: 1 });
    const r = await w.rpkg(w.alice, ["propose", "blueprints.apps.web.first", R]);
    w.forge.rateLimit.secondary(null);
    expect(w.forge.requestLog.count(pulls) - before).toBe(4);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("secondary rate limit");
    w.forge.rateLimit.secondary({ everyNthMutation: 2, retryAfter: 1 });
    const ok = await w.rpkg(w.alice, ["propose", "blueprints.apps.web.first", R]);
    w.forge.rateLimit.secondary(null);
    expect(ok).toMatchObject({ code: 0, stdout: "blueprints.apps.web.first proposed\n" });
  });

  it("fails at once, with GitHub's message, when GitHub asks for a wait longer than a minute", async () => {
    const labels = { method: "POST", route: "/repos/{owner}/{repo}/issues/{issue_number}/labels" };
    const pulls = { method: "PATCH", route: "/repos/{owner}/{repo}/pulls/{pull_number}" };
    const before = w.forge.requestLog.count(labels) + w.forge.requestLog.count(pulls);
    w.forge.rateLimit.secondary({ everyNthMutation: 1, retryAfter: 3600 });
    const started = Date.now();
    const r = await w.rpkg(w.alice, ["reject", "blueprints.apps.web.first", R]);
    w.forge.rateLimit.secondary(null);
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("secondary rate limit");
    expect(w.forge.requestLog.count(labels) + w.forge.requestLog.count(pulls) - before).toBe(1);
  });

  it("a read-only user cannot create drafts and is told why", async () => {
    const r = await w.rpkg(w.carol, ["init", "other", R, "--workspace=w"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/acme\/blueprints/);
  });
});
