import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { catTrip } from "./cat-trip.js";
import { hasKpt } from "./kpt-oracle.js";

/**
 * A comment after a resource's last annotation, through a function. kpt appends its own annotations to
 * `metadata.annotations` before the trip; yaml.v3 holds a mapping's foot on its last key, so the
 * function gets the comment after the user's last annotation and a blank line, then kpt's. What the
 * function writes after kpt's last annotation goes when kpt takes that annotation away. porchlight
 * wrote such a foot twice (GKE samples' `batch/airflow/cloud-sql-proxy.yaml`: `# [END …]` at column 0
 * after the annotations, then `---`).
 */
const SA = "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: a\n  annotations:\n    k: v\n";
const NEXT = "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n";

/** [name, file, what kpt v1.0.0-beta.56 writes with `exec: cat`] */
const CASES: [string, string, string][] = [
  ["at column 0, then `---`", `${SA}# END\n${NEXT}`, `${SA}# END\n${NEXT}`],
  ["at metadata's column, then `---`", `${SA}  # END\n${NEXT}`, `${SA}  # END\n${NEXT}`],
  ["at the annotations' column, then `---`", `${SA}    # END\n${NEXT}`, `${SA}    # END\n${NEXT}`],
  ["two lines after a line comment", `${SA.replace("k: v", "k: v # v")}    # A\n    # B\n${NEXT}`, ""],
  ["at column 0, ending the file", `${SA}# END\n`, `${SA}# END\n`],
];
for (const c of CASES) if (c[2] === "") c[2] = c[1];

const cat = catTrip("annotations-foot");

describe("a comment after a resource's last annotation, through `exec: cat`", () => {
  it.each(CASES)("%s: written once, where it was", async (_name, input, kpt) => {
    expect(await cat.throughCat(input)).toBe(kpt);
  });
});

describe("the ResourceList the function gets", () => {
  const seen = catTrip("annotations-foot-rl", 'tee "$(dirname "$0")/rl.yaml"');
  it("holds the foot after the user's last annotation and a blank line, then kpt's annotations", async () => {
    await seen.throughCat(`${SA}    # END\n${NEXT}`);
    const rl = readFileSync(join(seen.work, "rl.yaml"), "utf8");
    // as kpt v1.0.0-beta.56 writes it to the function's stdin
    expect(rl).toContain("      k: v\n      # END\n\n      config.kubernetes.io/index: '0'\n");
  });
});

// The function writes a comment after the second item's last annotation (kpt's `config.k8s.io/id`).
const INJECT = String.raw`awk '{ print } /^      config\.k8s\.io\/id: .2.$/ { print "  # fn" }'`;

describe("a comment a function writes after kpt's last annotation", () => {
  const inject = catTrip("annotations-foot-fn", INJECT);
  it("goes with that annotation, as in kpt", async () => {
    expect(await inject.throughCat(`${SA}${NEXT}`)).toBe(`${SA}${NEXT}`);
  });
});

describe.skipIf(!hasKpt)("the expectations are what kpt writes", () => {
  it("matches a kpt fn render with `exec: cat`", () => {
    const dir = join(cat.work, "kpt");
    mkdirSync(dir);
    writeFileSync(join(dir, "Kptfile"), "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: root\n");
    CASES.forEach(([, input], i) => {
      mkdirSync(join(dir, `c${i}`));
      writeFileSync(join(dir, `c${i}`, "Kptfile"), cat.kptfile(`c${i}`));
      writeFileSync(join(dir, `c${i}`, "f.yaml"), input);
    });
    execFileSync("kpt", ["fn", "render", dir, "--allow-exec"], { stdio: "pipe" });
    CASES.forEach(([name, , kpt], i) => {
      expect(readFileSync(join(dir, `c${i}`, "f.yaml"), "utf8"), name).toBe(kpt);
    });
  });
});
