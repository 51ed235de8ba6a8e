import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { serveCommand } from "../../src/cli/serve.js";
import { rows } from "../cli/rpkg/world.js";
import { docBlock } from "../util/doc-blocks.js";
import { KUBECTL_MISSING } from "../util/kubectl.js";

const kubectl = (kubeconfig: string, args: string[], home: string) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
    execFile(
      "kubectl",
      args,
      { env: { PATH: process.env.PATH ?? "", KUBECONFIG: kubeconfig, HOME: home } },
      (err, stdout, stderr) => resolve({ code: err ? 1 : 0, stdout, stderr }),
    ),
  );

/**
 * `npm start` (serve on the embedded forge) serves Porch's API: a newcomer exports the KUBECONFIG it
 * prints and lists the seeded package revisions with kubectl.
 */
describe.skipIf(KUBECTL_MISSING !== undefined)("porchlight serve: Porch's API for kubectl", () => {
  it("prints export KUBECONFIG=…, and kubectl get packagerevisions -n acme lists the seeded revisions (and packagevariants its variants)", async () => {
    let out = "";
    const running = serveCommand([], {
      stdout: (t) => {
        out += t;
      },
      stderr: () => {},
      readStdin: async () => "",
      cwd: process.cwd(),
      env: { PORT: "0", LOG_LEVEL: "silent", PORCHLIGHT_RECONCILE_INTERVAL_MS: "0" },
      isTTY: false,
    });
    while (!out.includes("kubectl get packagerevisions"))
      await new Promise((resolve) => setImmediate(resolve));
    const kubeconfig = /export KUBECONFIG=(\S+)/.exec(out)?.[1] ?? "";
    expect(kubeconfig).toMatch(/kubeconfig-reviewer\.yaml$/);
    // the users table is still read by a line's first word: each user's line is that table's alone
    const reviewer = out.split("\n").filter((l) => l.trim().split(/\s+/)[0] === "reviewer");
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
    process.emit("SIGTERM");
    expect(await running).toBe(0);
  });
});
