import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect } from "vitest";
import { defaultRegistry } from "../../src/fn/registry.js";
import { DEFAULT_RUN_OPTIONS } from "../../src/fn/runtime/types.js";
import { treeFromText, treeToText } from "../../src/kpt/tree.js";
import { render } from "../../src/render/render.js";

/**
 * A file's trip through a function that hands its ResourceList back as it got it (an exec `cat`), as
 * porchlight's render writes it: the comment tests compare it with what kpt writes. `script`, a shell
 * command in place of `cat`, reads the ResourceList on stdin and writes the function's output. Call
 * at a test file's top level: the work directory goes after the file's tests.
 */
export function catTrip(
  prefix: string,
  script = "cat",
): {
  work: string;
  /** A Kptfile named `name` whose one mutator is the `cat`. */
  kptfile: (name: string) => string;
  throughCat: (text: string) => Promise<string | undefined>;
} {
  const work = mkdtempSync(join(tmpdir(), `porchlight-${prefix}-`));
  const cat = join(work, "cat.sh");
  writeFileSync(cat, `#!/bin/sh\n${script}\n`, { mode: 0o755 });
  afterAll(() => rmSync(work, { recursive: true, force: true }));
  const kptfile = (name: string) =>
    `apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: ${name}\npipeline:\n  mutators:\n  - exec: ${cat}\n`;
  const throughCat = async (text: string) => {
    const out = await render(treeFromText({ Kptfile: kptfile("p"), "f.yaml": text }), "", {
      registry: defaultRegistry(),
      run: DEFAULT_RUN_OPTIONS,
      allowExec: true,
      rootDir: join(work, "pkg"),
    });
    expect(out.ok, out.error?.message).toBe(true);
    return treeToText(out.tree)["f.yaml"];
  };
  return { work, kptfile, throughCat };
}
