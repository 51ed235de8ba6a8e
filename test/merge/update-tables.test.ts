import { describe, expect, it } from "vitest";
import { skipWithoutKpt } from "../util/kpt.js";
import { classify, explain } from "./gen/compare.js";
import { runBatch } from "./kpt-oracle.js";
import { parseGoTables, tableTriple } from "./kpt-tables.js";

/**
 * A sample of the `pkg update` differential over kpt's merge tables (`npm run differential -- update`,
 * docs/kpt-compat.md): the reader of the tables, and cases shaped as theirs run by kpt and porchlight.
 */

const GO = [
  "var cases = []testCase{",
  "\t{",
  "\t\tdescription: `local renames, upstream scales`,",
  "\t\torigin: `",
  "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 3`,",
  "\t\tupdate: `",
  "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 4`,",
  "\t\tlocal: `",
  "apiVersion: apps/v1\nkind: Deployment\nmetadata: # kpt-merge: /web\n  name: dev-web\n  namespace: dev\nspec:\n  replicas: 3\n`,",
  "\t\texpected: `ignored`},",
  "}",
  "var kptfiles = map[string]struct{ origin, updated, local string }{",
  '\t"a pipeline added upstream": {',
  "\t\torigin: `\napiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: p\n`,",
  "\t\tupdated: `\napiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: p\npipeline:\n  mutators:\n  - image: set-labels:v0.1\n`,",
  "\t\tlocal: `\napiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: p\ninfo:\n  description: mine\n`,",
  "\t},",
  '\t"a pipeline removed and a condition added upstream": {',
  "\t\torigin: `\napiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: q\npipeline:\n  mutators:\n  - image: set-labels:v0.1\n`,",
  '\t\tupdated: `\napiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: q\nstatus:\n  conditions:\n  - type: ready\n    status: "True"\n`,',
  "\t\tlocal: `\napiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: q\npipeline:\n  mutators:\n  - image: set-labels:v0.1\n  - image: mine:v1\n`,",
  "\t},",
  "}",
].join("\n");

describe("pkg update over kpt's merge tables", () => {
  const resources = parseGoTables(GO.slice(0, GO.indexOf("var kptfiles")), "resources.go", false);
  const kptfiles = parseGoTables(GO.slice(GO.indexOf("var kptfiles")), "kptfile.go", true);

  it("reads each case's origin, update and local, named by its description or key", () => {
    expect(resources.map((c) => c.name)).toEqual(["local renames, upstream scales"]);
    expect(resources[0]?.local).toContain("name: dev-web");
    expect(kptfiles.map((c) => c.name)).toEqual([
      "a pipeline added upstream",
      "a pipeline removed and a condition added upstream",
    ]);
    expect(kptfiles[0]?.update).toContain("set-labels");
  });

  it("writes what kpt writes for each case", async (ctx) => {
    skipWithoutKpt(ctx);
    const results = await runBatch([...resources, ...kptfiles].map(tableTriple));
    for (const r of results) {
      expect(r.error).toBeUndefined();
      expect(classify(r), explain(r.kpt, r.porchlight)).toBe("identical");
    }
  });
});
