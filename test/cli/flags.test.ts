import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parseCommandArgs } from "../../src/cli/options.js";
import { porchlight } from "./pkg-fixture.js";

const work = mkdtempSync(join(tmpdir(), "porchlight-flags-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const run = (...argv: string[]) => porchlight(work, ...argv);

describe("porchlight's own commands share one flags layer", () => {
  it.for([
    [["pkg", "get", "--bogus"], "porchlight pkg get: unknown flag --bogus; this command knows --strategy"],
    [
      ["pkg", "diff", "--allow-dirty"],
      "porchlight pkg diff: unknown flag --allow-dirty; this command knows no flags",
    ],
    [["pkg", "update", "--strategy"], "porchlight pkg update: --strategy needs a value"],
    [["pkg", "update", "--allow-dirty=yes"], "porchlight pkg update: --allow-dirty takes no value"],
    [
      ["catalog", "list", "--fil=x"],
      "porchlight catalog: unknown flag --fil; this command knows --file, --repo, --channel, --repository, --api-url, --package, --message, --output",
    ],
    [["catalog", "list", "-o"], "porchlight catalog: --output needs a value"],
    [["rpkg", "get", "--repository"], "porchlight rpkg get: --repository needs a value"],
    [["rpkg", "get", "--repository", "--api-url=x"], "porchlight rpkg get: --repository needs a value"],
    [["serve", "--dat", "d"], "porchlight serve: unknown flag --dat; this command knows --data, --demo"],
    [["forge", "--nope"], "porchlight forge: unknown flag --nope"],
  ] as const)("%j is refused naming the flag, exit 2", async ([argv, text]) => {
    const r = await run(...argv);
    expect(r.code).toBe(2);
    expect(r.stderr.split("\n")[0]).toContain(text);
    expect(r.stderr.split("\n").length, "the usage follows").toBeGreaterThan(4);
  });

  it("reads --f=v, --f v, -ov, -o=v, --switch=false and keeps what follows -- positional", () => {
    const options = {
      output: { type: "string", short: "o" },
      force: { type: "boolean" },
      dry: { type: "boolean" },
    } as const;
    const read = (args: string[]) => parseCommandArgs("t", args, options, "usage");
    expect(read(["a", "--output=yaml", "--force=false", "--dry=true", "--", "--force"])).toEqual({
      values: { output: "yaml", dry: true },
      positionals: ["a", "--force"],
    });
    expect(read(["-oyaml"]).values).toEqual({ output: "yaml" });
    expect(read(["-o=json"]).values).toEqual({ output: "json" });
    expect(read(["-o", "-"]).values).toEqual({ output: "-" });
  });
});
