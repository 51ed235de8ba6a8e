import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rows } from "../cli/rpkg/world.js";
import { docBlock } from "../util/doc-blocks.js";
import { pushDraft } from "../util/git-draft.js";
import { gitAs } from "../util/git-identity.js";
import { KUBECTL_MISSING, kubectlWatch } from "../util/kubectl.js";
import { startServe } from "./serving.js";

const kubectl = (kubeconfig: string, args: string[], home: string, stdin?: string) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    const child = execFile(
      "kubectl",
      args,
      { env: { PATH: process.env.PATH ?? "", KUBECONFIG: kubeconfig, HOME: home } },
      (err, stdout, stderr) => resolve({ code: err ? 1 : 0, stdout, stderr }),
    );
    if (stdin !== undefined) child.stdin?.end(stdin);
  });

const git = gitAs("Reviewer");

/** `porchlight serve` on the embedded forge, started as npm start starts it, until `stop`. */
async function serveDemo(env: Record<string, string> = {}) {
  const { out, stop } = await startServe([], { PORCHLIGHT_RECONCILE_INTERVAL_MS: "0", ...env });
  const kubeconfigOf = (login: string) => new RegExp(`for ${login} \\(\\w+\\): (\\S+)`).exec(out)?.[1] ?? "";
  const pat = (login: string) => new RegExp(`^  ${login}\\t\\w+\\t(\\S+)$`, "m").exec(out)?.[1] ?? "";
  const forge = /forge: (\S+)/.exec(out)?.[1] ?? "";
  return {
    out,
    kubeconfigOf,
    pat,
    forge,
    stop,
  };
}

const DRAFT = `apiVersion: porch.kpt.dev/v1alpha1
kind: PackageRevision
metadata:
  name: blueprints.greeting.first
  namespace: acme
spec:
  packageName: greeting
  workspaceName: first
  repository: blueprints
  tasks:
  - type: init
    init:
      description: a greeting
`;

/**
 * `npm start` (serve on the embedded forge) serves Porch's API: a newcomer exports the KUBECONFIG it
 * prints and lists the seeded package revisions with kubectl, then lives a revision through it. One
 * serve for the file, not one a test: a second start-up, first sweep and stop were a fifth of the
 * file's CPU.
 */
describe.skipIf(KUBECTL_MISSING !== undefined)("porchlight serve: Porch's API for kubectl", () => {
  let demo: Awaited<ReturnType<typeof serveDemo>>;
  beforeAll(async () => {
    demo = await serveDemo({ PORCHLIGHT_API_WATCH_POLL_MS: "200" });
  });
  afterAll(async () => {
    await demo.stop();
  });

  it("prints export KUBECONFIG=…, and kubectl get packagerevisions -n acme lists the seeded revisions (and packagevariants its variants)", async () => {
    const kubeconfig = /export KUBECONFIG=(\S+)/.exec(demo.out)?.[1] ?? "";
    expect(kubeconfig).toMatch(/kubeconfig-reviewer\.yaml$/);
    // the users table is still read by a line's first word: each user's line is that table's alone
    const reviewer = demo.out.split("\n").filter((l) => l.trim().split(/\s+/)[0] === "reviewer");
    expect(reviewer).toHaveLength(1);
    expect(reviewer[0]).toMatch(/^ {2}reviewer\twrite\tghp_\w+$/);
    const home = mkdtempSync(join(tmpdir(), "kube-home-"));
    // docs/porch-api.md's first command, as a newcomer types it
    const [command, ...args] = docBlock("docs/porch-api.md", "kubectl get packagerevisions -n acme")
      .text.trim()
      .split(/\s+/);
    expect(command).toBe("kubectl");
    const r = await kubectl(kubeconfig, args, home);
    // the seeded variant files of acme/blueprints, as Porch's PackageVariant objects
    const variants = await kubectl(kubeconfig, ["get", "packagevariants", "-n", "acme", "-o", "name"], home);
    rmSync(home, { recursive: true, force: true });
    expect(variants.stdout).toBe(
      "packagevariant.config.porch.kpt.dev/hello-dev\npackagevariant.config.porch.kpt.dev/hello-prod\n",
    );
    expect(r.stderr).toBe("");
    expect(rows(r.stdout)).toEqual([
      "blueprints.hello.main hello main -1 false Published blueprints",
      "blueprints.hello.v1 hello v1 1 true Published blueprints",
    ]);
  });

  it("lives a revision as issue #51's done-when says: a reader refused, a draft applied, pushed, proposed, approved into a tag; a git push's draft in kubectl get -w", async () => {
    const home = mkdtempSync(join(tmpdir(), "kube-home-"));
    const as = (login: string, args: string[], stdin?: string) =>
      kubectl(demo.kubeconfigOf(login), args, home, stdin);
    try {
      const refused = await as("reader", ["label", "packagerevision", "blueprints.hello.v1", "tier=gold"]);
      expect(refused.stderr).toMatch(/^Error from server \(Forbidden\): .*reader has read permission/);
      expect((await as("reviewer", ["apply", "-f", "-"], DRAFT)).stdout).toBe(
        "packagerevision.porch.kpt.dev/blueprints.greeting.first created\n",
      );
      const files = JSON.parse(
        (await as("reviewer", ["get", "packagerevisionresources", "blueprints.greeting.first", "-o", "json"]))
          .stdout,
      ) as { spec: { resources: Record<string, string> } };
      files.spec.resources["greeting.yaml"] =
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: greeting\ndata:\n  text: hello\n";
      expect((await as("reviewer", ["replace", "-f", "-"], JSON.stringify(files))).code).toBe(0);
      const proposed = await as("reviewer", [
        "patch",
        "packagerevision",
        "blueprints.greeting.first",
        "--type=merge",
        "-p",
        '{"spec":{"lifecycle":"Proposed"}}',
      ]);
      expect(proposed.code).toBe(0);
      const approved = await as("maintainer", [
        "patch",
        "packagerevision",
        "blueprints.greeting.first",
        "--subresource=approval",
        "--type=merge",
        "-p",
        '{"spec":{"lifecycle":"Published"}}',
      ]);
      expect(approved.stderr).toBe("");
      // the tag on the forge, as git sees it
      const clone = join(home, "blueprints");
      const url = demo.forge.replace("://", `://reviewer:${demo.pat("reviewer")}@`);
      await git(home, "clone", "-q", `${url}/acme/blueprints.git`, clone);
      await git(clone, "rev-parse", "--verify", "-q", "refs/tags/greeting/v1");

      // a draft made by a plain git push, seen by kubectl get -w
      const watch = kubectlWatch("packagerevisions", {
        PATH: process.env.PATH ?? "",
        HOME: home,
        KUBECONFIG: demo.kubeconfigOf("reader"),
      });
      try {
        await watch.shows("blueprints.greeting.first");
        await pushDraft(
          git,
          clone,
          "drafts/pushed/by-git",
          { "pushed/Kptfile": "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: pushed\n" },
          "pushed: a draft made with git",
        );
        await watch.shows("blueprints.pushed.by-git");
        expect(watch.line("blueprints.pushed.by-git")?.slice(0, 2)).toEqual([
          "ADDED",
          "blueprints.pushed.by-git",
        ]);
      } finally {
        watch.stop();
      }
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  }, 240_000);
});
