import { describe, expect, it } from "vitest";
import { VERBS } from "../../../src/cli/rpkg/verbs.js";
import { porchlight } from "../pkg-fixture.js";

const run = (argv: string[]) => porchlight(process.cwd(), ...argv);

describe("rpkg's verbs, each loaded when it runs", () => {
  it("are listed by --help as each verb's own module names and sums it up", async () => {
    const help = await run(["rpkg", "--help"]);
    expect(help.code).toBe(0);
    const width = Math.max(...VERBS.map((v) => v.name.length)) + 2;
    for (const entry of VERBS) {
      const verb = await entry.load();
      expect({ name: entry.name, aliases: entry.aliases, summary: entry.summary }).toEqual({
        name: verb.name,
        aliases: verb.aliases,
        summary: verb.summary,
      });
      expect(help.stdout.split("\n")).toContain(`  ${verb.name.padEnd(width)}${verb.summary}`);
    }
  });

  it("runs a verb named by an alias, and prints its usage with --help", async () => {
    const del = await (VERBS.find((v) => v.name === "del")?.load() ?? Promise.reject(new Error("no del")));
    expect(await run(["rpkg", "delete", "--help"])).toEqual({ code: 0, stdout: del.usage, stderr: "" });
  });

  it("names them all for a verb that is none of them", async () => {
    const r = await run(["rpkg", "frobnicate"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `porchlight rpkg: unknown verb "frobnicate"; known verbs: ${VERBS.map((v) => v.name).join(", ")}\n`,
    );
  });
});
