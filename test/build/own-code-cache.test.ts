import { execFileSync, spawnSync } from "node:child_process";
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useTempDirs } from "../util/temp-dirs.js";

const ROOT = join(import.meta.dirname, "../..");

/**
 * The code cache a run keeps for the Node that runs it (bin/short-run.js) when the build's does not fit
 * (the build ran another Node: V8 refuses it) or is not there. The built command line is copied without
 * its caches (`npm run build` first), so that the Node of the tests finds none, as Node 24 finds none
 * it can use in a build made with Node 20.
 */
describe("the code cache a run keeps for its own Node", () => {
  let copy: string;
  let home: string;
  const bundle = () => join(copy, "dist", "bundle", "rpkg.cjs");
  const codeDir = () => join(home, "porchlight", "code");
  const cacheFiles = () => readdirSync(codeDir()).filter((f) => f.endsWith(".cache"));
  const theCache = () => {
    const files = cacheFiles();
    expect(files).toHaveLength(1);
    return join(codeDir(), files[0] as string);
  };

  beforeAll(() => {
    copy = mkdtempSync(join(tmpdir(), "porchlight-own-code-cache-"));
    mkdirSync(join(copy, "dist", "bundle"), { recursive: true });
    cpSync(join(ROOT, "bin"), join(copy, "bin"), { recursive: true });
    cpSync(join(ROOT, "package.json"), join(copy, "package.json"));
    for (const file of ["main.js", "rpkg.cjs"])
      cpSync(join(ROOT, "dist", "bundle", file), join(copy, "dist", "bundle", file));
  });
  const fresh = useTempDirs("porchlight-xdg-");
  afterAll(() => rmSync(copy, { recursive: true, force: true }));

  /** `porchlight ARGV` from the copy, its cache directory `cacheHome` (XDG_CACHE_HOME). */
  const porchlight = (argv: string[], cacheHome = home) =>
    spawnSync(process.execPath, [join(copy, "bin", "porchlight.js"), ...argv], {
      encoding: "utf8",
      env: { PATH: process.env.PATH ?? "", XDG_CACHE_HOME: cacheHome },
    });
  /** What bin/porchlight.js does to load the bundle, in a process of its own: was a cache used? */
  const loads = (run: string): boolean =>
    JSON.parse(
      execFileSync(
        process.execPath,
        [
          "-e",
          `const { loadBundle, tuneForShortRun } = require(${JSON.stringify(join(copy, "bin", "short-run.js"))});
tuneForShortRun();
const b = ${JSON.stringify(bundle())};
const { cacheUsed, keep } = loadBundle(b, b + ".cache", { env: process.env, run: ${JSON.stringify(run)} });
keep();
console.log(JSON.stringify(cacheUsed));`,
        ],
        { encoding: "utf8", env: { XDG_CACHE_HOME: home } },
      ),
    );
  // the help as the built command line prints it (a cache it keeps goes to a directory of the test's)
  const expected = spawnSync(process.execPath, [join(ROOT, "bin", "porchlight.js"), "rpkg", "--help"], {
    encoding: "utf8",
    env: { PATH: process.env.PATH ?? "", XDG_CACHE_HOME: fresh() },
  });

  it("is written after a first run, then used, and grows with each command run", () => {
    home = fresh();
    const first = porchlight(["rpkg", "--help"]);
    expect(first).toMatchObject({ status: 0, stdout: expected.stdout, stderr: "" });
    const file = theCache();
    expect(statSync(codeDir()).mode & 0o777).toBe(0o700);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const text = readFileSync(file, "latin1");
    expect(text.split("\n").slice(0, 3)).toEqual([
      "porchlight code cache 1",
      expect.stringContaining(`rpkg.cjs ${statSync(bundle()).size} `),
      expect.stringMatching(/^rpkg --help *$/),
    ]);
    // used, and not written again (a refused cache would be replaced: another file, renamed into place)
    const { ino, mtimeMs, size } = statSync(file);
    expect(porchlight(["rpkg", "--help"])).toMatchObject({ status: 0, stdout: expected.stdout });
    expect(statSync(file)).toMatchObject({ ino, mtimeMs });
    expect(loads("rpkg --help")).toBe(true);
    // another command: used, then kept again with what that command compiled too
    expect(porchlight(["repo", "--help"]).status).toBe(0);
    expect(readFileSync(theCache(), "latin1").split("\n")[2]?.trimEnd()).toBe("rpkg --help\trepo --help");
    expect(statSync(theCache()).size).toBeGreaterThan(size);
    expect(loads("repo --help")).toBe(true);
  });

  it("ignores a corrupt file and a file of another key, and writes one that fits in their place", () => {
    home = fresh();
    expect(porchlight(["rpkg", "--help"]).status).toBe(0);
    const file = theCache();
    const [magic, key, runs] = readFileSync(file, "latin1").split("\n");
    // V8's cache cut in half and scrambled, after the right header
    const good = readFileSync(file);
    const cut = good.subarray(0, good.length / 2).map((b, i) => (i > 200 ? b ^ 0x5a : b));
    writeFileSync(file, cut);
    expect(porchlight(["rpkg", "--help"])).toMatchObject({ status: 0, stdout: expected.stdout, stderr: "" });
    expect(statSync(file).size).toBeGreaterThan(cut.length);
    expect(loads("rpkg --help")).toBe(true);
    // a file under this name made for another key (another Node, other flags): not handed to V8
    writeFileSync(
      file,
      Buffer.concat([Buffer.from(`${magic}\n${key} other\n${runs}\n`), good.subarray(200)]),
    );
    expect(loads("rpkg --help")).toBe(false);
    expect(readFileSync(file, "latin1").split("\n")[1]).toBe(key);
    expect(loads("rpkg --help")).toBe(true);
    // not a cache at all
    writeFileSync(file, "porchlight code cache 1");
    expect(loads("rpkg --help")).toBe(false);
    expect(loads("rpkg --help")).toBe(true);
  });

  it("is not read for a rebuilt bundle, whose cache replaces it", () => {
    home = fresh();
    expect(loads("rpkg --help")).toBe(false);
    const before = theCache();
    expect(loads("rpkg --help")).toBe(true);
    // the same length (V8 checks no more of the source), another build
    const later = new Date(statSync(bundle()).mtimeMs + 60_000);
    utimesSync(bundle(), later, later);
    expect(loads("rpkg --help")).toBe(false);
    expect(theCache()).not.toBe(before);
    expect(loads("rpkg --help")).toBe(true);
  });

  it("never fails the command when it cannot be written", () => {
    // the cache directory under a file: nothing can be made there, whoever runs the test
    const file = join(fresh(), "a-file");
    writeFileSync(file, "");
    const r = porchlight(["rpkg", "--help"], file);
    expect(r).toMatchObject({ status: 0, stdout: expected.stdout, stderr: "" });
    // nor when there is no cache directory at all (no XDG_CACHE_HOME, no HOME)
    const none = spawnSync(process.execPath, [join(copy, "bin", "porchlight.js"), "rpkg", "--help"], {
      encoding: "utf8",
      env: { PATH: process.env.PATH ?? "" },
    });
    expect(none).toMatchObject({ status: 0, stdout: expected.stdout, stderr: "" });
  });
});
