import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { changedPackages } from "../../src/action/changed-packages.js";
import { main } from "../../src/cli/main.js";
import { GIT_IDENTITY } from "../util/git-identity.js";
import { captureIO } from "./helpers.js";

const KPTFILE = "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: x\n";

describe("the packages a pull request changes", () => {
  const dir = mkdtempSync(join(tmpdir(), "porchlight-changed-"));
  const git = (...args: string[]) =>
    execFileSync("git", args, {
      cwd: dir,
      env: { ...process.env, ...GIT_IDENTITY },
    })
      .toString()
      .trim();
  const write = (files: Record<string, string>) => {
    for (const [p, t] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, p)), { recursive: true });
      writeFileSync(join(dir, p), t);
    }
  };
  let base = "";

  beforeAll(() => {
    git("init", "-q", "-b", "main");
    write({
      "README.md": "x\n",
      "apps/web/Kptfile": KPTFILE,
      "apps/web/db/Kptfile": KPTFILE,
      "apps/web/db/s.yaml": "a: 1\n",
      "apps/api/Kptfile": KPTFILE,
      "apps/api/d.yaml": "a: 1\n",
      "infra/old/Kptfile": KPTFILE,
    });
    git("add", "-A");
    git("commit", "-qm", "base");
    base = git("rev-parse", "HEAD");
    git("checkout", "-qb", "change");
    write({ "apps/web/db/s.yaml": "a: 2\n", "README.md": "y\n", "new pkg/Kptfile": KPTFILE });
    git("rm", "-rq", "infra/old");
    git("add", "-A");
    git("commit", "-qm", "change");
    // main moves on after the branch: its own changes are not the pull request's.
    git("checkout", "-q", "main");
    write({ "apps/api/d.yaml": "a: 3\n" });
    git("commit", "-qam", "main moves");
    git("checkout", "-q", "change");
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("lists the outermost package of each changed file since the merge base, not deleted ones", async () => {
    expect(await changedPackages(dir, "main")).toEqual(["apps/web", "new pkg"]);
    expect(await changedPackages(dir, base, "change")).toEqual(["apps/web", "new pkg"]);
  });

  it("prints them one a line from the CLI, and explains a missing commit", async () => {
    const io = captureIO({ cwd: dir });
    expect(await main(["action", "packages", "--base", "main"], io)).toBe(0);
    expect(io.out()).toBe("apps/web\nnew pkg\n");
    const bad = captureIO({ cwd: dir });
    expect(
      await main(["action", "packages", "--base", "0000000000000000000000000000000000000000"], bad),
    ).toBe(1);
    expect(bad.err()).toMatch(/cannot compare 0{40} with HEAD .*fetch-depth: 0/s);
  });

  it("needs --base", async () => {
    const io = captureIO({ cwd: dir });
    expect(await main(["action", "packages"], io)).toBe(2);
    expect(io.err()).toMatch(/--base REF is required/);
  });
});
