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
      expect({ name: entry.name, summary: entry.summary }).toEqual({
        name: verb.name,
        summary: verb.summary,
      });
      expect(help.stdout.split("\n")).toContain(`  ${verb.name.padEnd(width)}${verb.summary}`);
    }
  });

  /**
   * porchctl's other names for its rpkg verbs: the `Aliases` of each cobra command at Porch's main
   * (nephio-project/porch 74d82d5): pkg/cli/commands/rpkg/get/command.go (list), pull/command.go
   * (source, read), push/command.go (sink, write), del/command.go (delete), copy/command.go (edit),
   * proposedelete/command.go (propose-del); init, clone, propose, approve, reject and upgrade have none.
   */
  const PORCHCTL_ALIASES: Record<string, string> = {
    list: "get",
    source: "pull",
    read: "pull",
    sink: "push",
    write: "push",
    delete: "del",
    edit: "copy",
    "propose-del": "propose-delete",
  };

  it("are porchctl's aliases, each in the table once, under the verb porchctl gives it", () => {
    const table = Object.fromEntries(VERBS.flatMap((v) => (v.aliases ?? []).map((a) => [a, v.name])));
    expect(table).toEqual(PORCHCTL_ALIASES);
  });

  it.each(Object.entries(PORCHCTL_ALIASES))("runs %s as %s (its usage with --help)", async (alias, name) => {
    const verb = await (VERBS.find((v) => v.name === name)?.load() ?? Promise.reject(new Error(name)));
    expect(await run(["rpkg", alias, "--help"])).toEqual({ code: 0, stdout: verb.usage, stderr: "" });
  });

  it("takes porchctl's other name for the group, rpackage (pkg/cli/commands/rpkg/rpkgcmd.go)", async () => {
    const get = await (VERBS.find((v) => v.name === "get")?.load() ?? Promise.reject(new Error("no get")));
    expect(await run(["rpackage", "list", "--help"])).toEqual({ code: 0, stdout: get.usage, stderr: "" });
  });

  it("lists the aliases in rpkg --help, each with its verb", async () => {
    const help = await run(["rpkg", "--help"]);
    expect(help.stdout).toContain(
      "porchctl's other names for them work too: list (get), edit (copy), source (pull), read (pull), sink (push), write (push), delete (del), propose-del (propose-delete).",
    );
  });

  it("names them all for a verb that is none of them", async () => {
    const r = await run(["rpkg", "frobnicate"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `porchlight rpkg: unknown verb "frobnicate"; known verbs: ${VERBS.map((v) => v.name).join(", ")}\n`,
    );
  });
});
