import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import { captureIO } from "../util/cli-io.js";

function captured() {
  const io = captureIO();
  return { io, out: io.out, err: io.err };
}

describe("porchlight", () => {
  it("lists every command with what it does", async () => {
    const c = captured();
    expect(await main(["--help"], c.io)).toBe(0);
    for (const name of ["fn", "pkg", "rpkg", "catalog", "serve", "action", "forge"]) {
      expect(c.out()).toMatch(new RegExp(`^  ${name} +\\S`, "m"));
    }
  });

  it("names the known commands when given an unknown one, and exits 2", async () => {
    const c = captured();
    expect(await main(["rednder"], c.io)).toBe(2);
    expect(c.err()).toBe(
      'porchlight: unknown command "rednder"; known commands: fn, pkg, rpkg, repo, catalog, api, serve, action, forge\n',
    );
  });

  it.each(["--version", "version"])("prints the installed package's version with %s", async (flag) => {
    const c = captured();
    const { version } = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8"));
    expect(await main([flag], c.io)).toBe(0);
    expect(c.out()).toBe(`porchlight ${version}\n`);
  });

  it("prints usage and exits 2 with no command", async () => {
    const c = captured();
    expect(await main([], c.io)).toBe(2);
    expect(c.out()).toContain("Usage: porchlight <command> [args]");
  });
});
