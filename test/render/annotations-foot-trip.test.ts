import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { catTrip } from "./cat-trip.js";
import { type KptCase, kptCases } from "./kpt-cases.js";

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

/** Each file kpt v1.0.0-beta.56 writes back as it was, with no function and through `exec: cat`. */
const CASES: KptCase[] = [
  ["at column 0, then `---`", `${SA}# END\n${NEXT}`],
  ["at metadata's column, then `---`", `${SA}  # END\n${NEXT}`],
  ["at the annotations' column, then `---`", `${SA}    # END\n${NEXT}`],
  ["two lines after a line comment", `${SA.replace("k: v", "k: v # v")}    # A\n    # B\n${NEXT}`],
  ["at column 0, ending the file", `${SA}# END\n`],
];

// the files are whole: no header before them
kptCases("a comment after a resource's last annotation", CASES, "");

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
