import { execFile } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RpkgWorld, rpkgWorld } from "../cli/rpkg/world.js";

const ROOT = join(import.meta.dirname, "../..");
const run = promisify(execFile);

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * `porchlight rpkg` and `repo` as installed (`npm run build` first): bin/porchlight.js runs them from
 * dist/bundle/rpkg.cjs, which holds everything they load. The command line is copied without
 * node_modules, so a command that loaded anything else (the ES module bundle imports probot, Octokit and
 * the rest from there) would fail; each verb's output must be the one the sources give (`main` run in
 * this process, as the rpkg tests run it), byte for byte, against the same forge.
 */
describe("rpkg and repo from their bundle", () => {
  let w: RpkgWorld;
  let shipped: string;
  const R = "--repository=acme/blueprints";

  beforeAll(async () => {
    shipped = mkdtempSync(join(tmpdir(), "porchlight-shipped-"));
    for (const part of ["bin", "dist/bundle", "package.json"])
      cpSync(join(ROOT, part), join(shipped, part), { recursive: true });
    w = await rpkgWorld();
    await w.forge.createRepo("acme/.porchlight", { autoInit: true });
    w.forge.setPermission("acme/.porchlight", "alice", "write");
  });
  afterAll(async () => {
    await w.stop();
    rmSync(shipped, { recursive: true, force: true });
  });

  /** `porchlight ARGV` run from the copy, as a person runs it, against the forge. */
  async function bundled(token: string, argv: string[]): Promise<Run> {
    const env = { PATH: process.env.PATH ?? "", ...(token ? { GH_TOKEN: token } : {}) };
    try {
      const { stdout, stderr } = await run(
        process.execPath,
        [join(shipped, "bin", "porchlight.js"), ...argv, `--api-url=${w.forge.apiUrl}`],
        { cwd: w.tmp, env },
      );
      return { code: 0, stdout, stderr };
    } catch (e) {
      const { code, stdout, stderr } = e as { code: number; stdout: string; stderr: string };
      return { code, stdout, stderr };
    }
  }

  it("prints the help and the usage errors the sources print", async () => {
    for (const argv of [
      ["rpkg", "--help"],
      ["rpkg", "get", "--help"],
      ["rpkg", "delete", "--help"],
      ["repo", "--help"],
      ["rpkg", "frobnicate"],
      ["rpkg", "init", R],
      ["rpkg", "get", "--repository=not-a-repo"],
    ])
      expect(await bundled(w.alice, argv), argv.join(" ")).toEqual(await w.cli(w.alice, argv));
    expect(await bundled("", ["rpkg", "get", R])).toEqual(await w.cli("", ["rpkg", "get", R]));
  });

  it("makes, lists, pushes, proposes and publishes a package as the sources do", async () => {
    // the same steps for two packages, one through the bundle, one through the sources
    const steps = async (cli: typeof bundled, pkg: string) => {
      const name = `blueprints.${pkg}.w`;
      const dir = join(w.tmp, pkg);
      const out: Run[] = [];
      out.push(await cli(w.alice, ["rpkg", "init", pkg, "--workspace=w", "--description=d", R]));
      out.push(await cli(w.alice, ["rpkg", "pull", name, dir, R]));
      writeFileSync(join(dir, "cm.yaml"), `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${pkg}\n`);
      out.push(await cli(w.alice, ["rpkg", "push", name, dir, R]));
      out.push(await cli(w.alice, ["rpkg", "pull", name, R]));
      out.push(await cli(w.alice, ["rpkg", "propose", name, R]));
      await w.publish("acme/blueprints", name);
      // a revision's uid and resourceVersion are its own (its name, its commit)
      const own = (text: string) =>
        text.replaceAll(pkg, "PKG").replace(/^(\s*(?:uid|resourceVersion): ).*$/gm, "$1…");
      return out.map((r) => ({ ...r, stdout: own(r.stdout) }));
    };
    const fromBundle = await steps(bundled, "viabundle");
    expect(fromBundle.map((r) => r.code)).toEqual([0, 0, 0, 0, 0]);
    expect(fromBundle).toEqual(await steps(w.cli, "viasources"));
    expect(readFileSync(join(w.tmp, "viabundle", "cm.yaml"), "utf8")).toContain("name: viabundle");
  });

  it("lists revisions and registrations as the sources do", async () => {
    // registered (alice may not administer acme/.porchlight: a warning says who must share it)
    const registered = await bundled(w.alice, ["repo", "register", "--namespace=acme", "acme/blueprints"]);
    expect(registered).toMatchObject({ code: 0, stdout: "" });
    for (const argv of [
      ["rpkg", "get", R],
      ["rpkg", "get", R, "-o", "yaml"],
      ["rpkg", "get", "--namespace=acme"],
      ["repo", "get", "--namespace=acme"],
      ["rpkg", "get", "blueprints.viabundle.w", R, "-o", "json"],
    ]) {
      const fromBundle = await bundled(w.alice, argv);
      expect(fromBundle.code, `${argv.join(" ")}: ${fromBundle.stderr}`).toBe(0);
      expect(fromBundle, argv.join(" ")).toEqual(await w.cli(w.alice, argv));
    }
  });
});
