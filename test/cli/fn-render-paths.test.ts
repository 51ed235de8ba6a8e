import { describe, expect, it } from "vitest";
import { skipWithoutKpt } from "../util/kpt.js";
import { withBoth } from "./fn-oracle.js";

const CM = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: one\n";
const KPTFILE = (name: string, exec: string): string =>
  `apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: ${name}\npipeline:\n  mutators:\n    - exec: "${exec}"\n`;

describe("where fn render puts what a function moved, as kpt does", () => {
  it("an absolute path lands below the package", async (ctx) => {
    const { pl, kpt } = await withBoth(["render", "pkg", "--allow-exec"], {
      "pkg/Kptfile": KPTFILE("app", "sed -e s|'cm.yaml'|'/another/out.yaml'|"),
      "pkg/cm.yaml": CM,
    });
    expect(pl.code).toBe(0);
    expect(pl.files["pkg/another/out.yaml"]).toBe(CM);
    skipWithoutKpt(ctx);
    expect(pl).toEqual(kpt);
  });

  it("a subpackage's resource may not climb to its parent", async (ctx) => {
    const { pl, kpt } = await withBoth(["render", "pkg", "--allow-exec"], {
      "pkg/Kptfile": "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: app\n",
      "pkg/db/Kptfile": KPTFILE("db", "sed -e s|'cm.yaml'|'../up.yaml'|"),
      "pkg/db/cm.yaml": CM,
    });
    expect(pl.code).toBe(1);
    expect(pl.stderr).toContain(
      "Error: function must not modify resources outside of package: resource has path ../up.yaml \n",
    );
    expect(pl.files["pkg/up.yaml"]).toBeUndefined();
    skipWithoutKpt(ctx);
    expect(pl.files).toEqual(kpt.files);
  });

  it("a result names a subpackage's resource by its path in the subpackage (the root's pipeline sees it so)", async (ctx) => {
    // A validator reporting each item's kind, name, path and index annotations as a result.
    const report = String.raw`#!/bin/sh
in=$(cat)
printf '%s\n' "$in"
echo "results:"
printf '%s\n' "$in" | awk '
BEGIN { q = sprintf("%c", 39) }
/^  kind: / { kind = $2 }
/^    name: / { name = $2 }
/^      config.kubernetes.io\/index: / { idx = $2; gsub(q, "", idx) }
/^      config.kubernetes.io\/path: / {
  printf "- message: %s %s\n  severity: warning\n  resourceRef:\n    kind: %s\n    name: %s\n", kind, name, kind, name
  printf "  file:\n    path: %s\n    index: %s\n", $2, idx
}'
`;
    const { pl, kpt } = await withBoth(["render", "pkg", "--allow-exec", "--results-dir", "res"], {
      "report.sh": report,
      "pkg/Kptfile":
        "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: app\npipeline:\n  validators:\n    - exec: ./report.sh\n",
      "pkg/cm.yaml": CM,
      "pkg/sub0/Kptfile": "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: sub0\n",
      "pkg/sub0/app-1.yaml": `${CM}---\n${CM.replace("one", "two")}`,
    });
    expect(pl.code).toBe(0);
    const results = pl.files["res/results.yaml"] ?? "";
    expect(results).toContain(
      "      - message: ConfigMap two\n        severity: warning\n        resourceRef:\n          kind: ConfigMap\n          name: two\n        file:\n          path: app-1.yaml\n          index: 1\n",
    );
    expect(results).not.toContain("sub0/");
    skipWithoutKpt(ctx);
    expect(pl).toEqual(kpt);
  });

  it("a setter that changes a path annotation moves the resource, after builtins that kept the paths", async () => {
    // A function that tags the resource's path annotation with a setter, as a user's function could.
    // (kpt runs the two builtins as containers: not compared with it where there is no Docker.)
    const tag = String.raw`#!/bin/sh
sed -e "s|^\( *\)config.kubernetes.io/path: 'cm.yaml'\$|&  # kpt-set: \${file}|"
`;
    const { pl } = await withBoth(["render", "pkg", "--allow-exec"], {
      "tag.sh": tag,
      "pkg/Kptfile":
        "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: app\npipeline:\n  mutators:\n    - exec: ./tag.sh\n    - image: set-labels:v0.2.1\n      configMap:\n        team: a\n    - image: apply-setters:v0.2.0\n      configMap:\n        file: moved.yaml\n",
      "pkg/cm.yaml": CM,
    });
    expect(pl.code).toBe(0);
    expect(pl.files["pkg/cm.yaml"]).toBeUndefined();
    expect(pl.files["pkg/moved.yaml"]).toBe(`${CM}  labels:\n    team: a\n`);
  });
});
