import { describe, expect, it } from "vitest";
import { skipWithoutKpt } from "../util/kpt.js";
import { withBoth } from "./fn-oracle.js";

const RESOURCES = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: foo\n  namespace: foo\n";
const KPTFILE = (exec: string): string =>
  `apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: app\npipeline:\n  mutators:\n    - exec: "${exec}"\n`;
const CHATTY = `#!/bin/sh\ncat\nfor i in 1 2 3 4 5 6; do echo "line $i" >&2; done\n`;
const FAILING = `#!/bin/sh\necho "bad input" >&2\nexit 3\n`;

describe("exec functions on the fn command line", () => {
  it("runs a program from PATH with its arguments: exec: \"sed -e 's/foo/bar/'\"", async (ctx) => {
    const { pl, kpt } = await withBoth(["render", "pkg", "--allow-exec"], {
      "pkg/Kptfile": KPTFILE("sed -e 's/foo/bar/'"),
      "pkg/cm.yaml": RESOURCES,
    });
    expect(pl.code).toBe(0);
    expect(pl.files["pkg/cm.yaml"]).toContain("namespace: bar");
    skipWithoutKpt(ctx);
    expect(pl).toEqual(kpt);
  });

  it("shows what a passing function wrote to stderr under Stderr:, truncated", async (ctx) => {
    const { pl, kpt } = await withBoth(["eval", "pkg", "--exec", "./chatty.sh"], {
      "chatty.sh": CHATTY,
      "pkg/cm.yaml": RESOURCES,
    });
    expect(pl.stderr).toContain(
      `[PASS] "./chatty.sh" in 0s\n  Stderr:\n    "line 1"\n    "line 2"\n    "line 3"\n    "line 4"\n    ...(3 line(s) truncated, use '--truncate-output=false' to disable)\n`,
    );
    skipWithoutKpt(ctx);
    expect(pl).toEqual(kpt);
  });

  it("shows every stderr line with --truncate-output=false", async (ctx) => {
    const { pl, kpt } = await withBoth(["eval", "pkg", "--exec", "./chatty.sh", "--truncate-output=false"], {
      "chatty.sh": CHATTY,
      "pkg/cm.yaml": RESOURCES,
    });
    expect(pl.stderr).toContain(`    "line 6"\n    ""\n`);
    skipWithoutKpt(ctx);
    expect(pl).toEqual(kpt);
  });

  it("shows a failing function's stderr and exit code, and exits 1", async (ctx) => {
    const { pl, kpt } = await withBoth(["render", "pkg", "--allow-exec"], {
      "pkg/Kptfile": KPTFILE("./failing.sh"),
      "pkg/cm.yaml": RESOURCES,
      "failing.sh": FAILING,
    });
    expect(pl.code).toBe(1);
    expect(pl.stderr).toContain(`  Stderr:\n    "bad input"\n    ""\n  Exit code: 3\n`);
    skipWithoutKpt(ctx);
    expect(pl).toEqual(kpt);
  });

  it("records a passing function's stderr in results.yaml", async (ctx) => {
    const { pl, kpt } = await withBoth(["eval", "pkg", "--exec", "./chatty.sh", "--results-dir", "res"], {
      "chatty.sh": CHATTY,
      "pkg/cm.yaml": RESOURCES,
    });
    expect(pl.files["res/results.yaml"]).toContain("    stderr: |\n      line 1\n");
    skipWithoutKpt(ctx);
    expect(pl).toEqual(kpt);
  });

  it("hands a validator the items as kpt does: ids, but no annotations-migration id", async (ctx) => {
    const { pl, kpt } = await withBoth(["render", "pkg", "--allow-exec", "--truncate-output=false"], {
      "dump.sh": `#!/bin/sh\nin=$(cat)\nprintf '%s\\n' "$in"\nprintf '%s\\n' "$in" >&2\n`,
      "pkg/Kptfile": KPTFILE("./dump.sh").replace("mutators", "validators"),
      "pkg/cm.yaml": RESOURCES,
    });
    expect(pl.code, pl.stderr).toBe(0);
    expect(pl.stderr).toContain(`"      config.k8s.io/id: '2'"`);
    expect(pl.stderr).not.toContain("annotations-migration-resource-id");
    skipWithoutKpt(ctx);
    expect(pl).toEqual(kpt);
  });
});
