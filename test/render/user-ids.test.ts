import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { defaultRegistry } from "../../src/fn/registry.js";
import { DEFAULT_RUN_OPTIONS } from "../../src/fn/runtime/types.js";
import { treeFromText, treeToText } from "../../src/kpt/tree.js";
import { render } from "../../src/render/render.js";
import { catTrip } from "./cat-trip.js";
import { hasKpt } from "./kpt-oracle.js";

/**
 * A file that holds kpt's id annotations itself (the functions catalog's
 * `tests/starlark/preserve-id-annotations/app.yaml`): a render with no function wrote it without them
 * — the file's own annotations lost. kpt keeps them, and adds the other form of the id (its
 * annotation migration: `internal.config.kubernetes.io/id: '1'` under `config.k8s.io/id: "1"`).
 * porchlight keeps the file as it was and writes no annotation of kpt's into it (docs/kpt-compat.md,
 * Deviations). Through a function kpt sets its own ids over them and takes them away: so does porchlight.
 */
const FILE = `apiVersion: v1
kind: ConfigMap
metadata:
  name: my-cm
  annotations:
    a: b
    config.k8s.io/id: "1"
    c: d
data:
  k: v
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: other
  annotations:
    internal.config.kubernetes.io/id: "2"
`;
const BARE = "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: p\n";
const cat = catTrip("user-ids");

describe("id annotations a file holds itself", () => {
  it("stay as they are when no function runs", async () => {
    const out = await render(treeFromText({ Kptfile: BARE, "f.yaml": FILE }), "", {
      registry: defaultRegistry(),
      run: DEFAULT_RUN_OPTIONS,
    });
    expect(out.ok, out.error?.message).toBe(true);
    expect(treeToText(out.tree)["f.yaml"]).toBe(FILE);
  });

  it("go through a function, as in kpt", async () => {
    const gone = FILE.replace('    config.k8s.io/id: "1"\n', "").replace(
      '  annotations:\n    internal.config.kubernetes.io/id: "2"\n',
      "",
    );
    expect(await cat.throughCat(FILE)).toBe(gone);
  });

  it.skipIf(!hasKpt)("kpt keeps them with no function, adding its other form of the id", () => {
    const dir = join(cat.work, "kpt");
    mkdirSync(dir);
    writeFileSync(join(dir, "Kptfile"), BARE);
    writeFileSync(join(dir, "f.yaml"), FILE);
    execFileSync("kpt", ["fn", "render", dir], { stdio: "pipe" });
    const kpt = FILE.replace("    c: d\n", "    c: d\n    internal.config.kubernetes.io/id: '1'\n").replace(
      '    internal.config.kubernetes.io/id: "2"\n',
      "    internal.config.kubernetes.io/id: \"2\"\n    config.k8s.io/id: '2'\n",
    );
    expect(readFileSync(join(dir, "f.yaml"), "utf8")).toBe(kpt);
  });
});
