import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultRegistry } from "../../src/fn/registry.js";
import { runFn } from "../render/harness.js";
import {
  differingFiles,
  kptAvailable,
  kptRender,
  listPackages,
  type PipelineMode,
  preparePackage,
  REALWORLD_DIR,
  type RunResult,
  readTextTree,
  unifiedDiff,
  writeExecFunctions,
} from "./realworld.js";

/**
 * Every package of shared/conformance/realworld, rendered by kpt and by porchlight's `fn render`, must
 * come out byte for byte the same: with the pipelines removed (only reading, formatting and writing),
 * and with every pipeline replaced by an exec function that echoes the ResourceList. Packages listed
 * in realworld-known.txt (`mode package`) are known to differ: they are expected to fail, and the test
 * says so when one starts to pass, so the list only shrinks.
 */
const why =
  REALWORLD_DIR === undefined
    ? "shared/conformance/realworld is not beside the repository (or set PORCHLIGHT_CONFORMANCE_DIR)"
    : !kptAvailable()
      ? "kpt is not installed (install kpt v1.0.0-beta.56 to compare with it)"
      : undefined;
if (why) console.warn(`skipping the real-world conformance suite: ${why}`);

const MODES: PipelineMode[] = ["none", "exec-cat", "exec-sed"];
const known = new Set(
  readFileSync(join(import.meta.dirname, "realworld-known.txt"), "utf8")
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "" && !l.startsWith("#")),
);

/**
 * Renders every package at once, per side: the packages become subpackages of one root package with no
 * pipeline, so one kpt process renders them all (each subpackage's own pipeline, if any, sees only its
 * own resources, as when rendered alone).
 */
function renderAll(work: string, mode: PipelineMode, exec: string | undefined) {
  const sides = ["kpt", "porchlight"].map((who) => {
    const root = join(work, mode, who, "all");
    mkdirSync(root, { recursive: true });
    writeFileSync(join(root, "Kptfile"), "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: all\n");
    for (const pkg of listPackages())
      preparePackage(join(REALWORLD_DIR!, pkg), join(root, slug(pkg)), mode, exec);
    return root;
  });
  return { kptRoot: sides[0]!, plRoot: sides[1]! };
}

function slug(pkg: string): string {
  return pkg.replaceAll("/", "__");
}

describe.skipIf(why !== undefined)("real-world kpt packages render byte-identical to kpt", () => {
  let work: string;
  const runs = new Map<PipelineMode, { kptRoot: string; plRoot: string; kpt: RunResult; pl: RunResult }>();

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), "porchlight-realworld-"));
    const execs = writeExecFunctions(work);
    for (const mode of MODES) {
      const { kptRoot, plRoot } = renderAll(work, mode, mode === "none" ? undefined : execs[mode]);
      const kpt = kptRender(kptRoot);
      const pl = await runFn(["render", "--allow-exec", "."], plRoot, defaultRegistry);
      runs.set(mode, { kptRoot, plRoot, kpt, pl });
    }
    // Three whole-corpus renders per side: about 20 s on an idle 2-core machine, more under load.
  }, 300_000);

  afterAll(() => {
    rmSync(work, { recursive: true, force: true });
  });

  const cases = MODES.flatMap((mode) => listPackages().map((pkg) => ({ mode, pkg })));

  it.each(MODES)("%s: kpt and porchlight both render the whole corpus", (mode) => {
    const run = runs.get(mode)!;
    // A corpus kpt cannot render compares nothing (both sides unchanged): that must not pass.
    expect(run.kpt.code, `kpt: ${run.kpt.stderr}`).toBe(0);
    expect(run.pl.code, `kpt: ${run.kpt.stderr}\nporchlight: ${run.pl.stderr}`).toBe(run.kpt.code);
  });

  it.each(cases)("$mode: $pkg", ({ mode, pkg }) => {
    const run = runs.get(mode)!;
    const kptDir = join(run.kptRoot, slug(pkg));
    const plDir = join(run.plRoot, slug(pkg));
    const differing = differingFiles(readTextTree(kptDir), readTextTree(plDir));
    if (known.has(`${mode} ${pkg}`)) {
      expect(
        differing.length,
        `${mode} ${pkg} now renders as kpt does: remove it from realworld-known.txt`,
      ).toBeGreaterThan(0);
      return;
    }
    expect(differing, unifiedDiff(kptDir, plDir)).toEqual([]);
  });
});
