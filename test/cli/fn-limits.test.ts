import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runFn } from "../render/harness.js";

const dir = mkdtempSync(join(tmpdir(), "porchlight-fn-limits-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const KPTFILE = `apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: many
pipeline:
  mutators:
    - image: ghcr.io/kptdev/krm-functions-catalog/set-labels:v0.2
      configMap:
        team: web
`;

function packageOf(name: string, n: number): string {
  const pkg = join(dir, name);
  mkdirSync(pkg);
  writeFileSync(join(pkg, "Kptfile"), KPTFILE);
  const cms = Array.from(
    { length: n },
    (_, i) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-${i}\n`,
  );
  writeFileSync(join(pkg, "cms.yaml"), cms.join("---\n"));
  return pkg;
}

describe("porchlight fn render and the resource limit", () => {
  it("renders any size by default: the bot's limits are not the CLI's", async () => {
    const pkg = packageOf("unlimited", 12_001);
    const run = await runFn(["render", "unlimited"], dir);
    expect(run.code).toBe(0);
    expect(readFileSync(join(pkg, "cms.yaml"), "utf8")).toContain("team: web");
  });

  it("--max-resources refuses a larger package before any function runs, and writes nothing", async () => {
    const pkg = packageOf("bounded", 12);
    const before = readFileSync(join(pkg, "cms.yaml"));
    const run = await runFn(["render", "bounded", "--max-resources", "10"], dir);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain(
      ".: 12 resources, more than the limit of 10; split the package, or raise the limit",
    );
    expect(readFileSync(join(pkg, "cms.yaml")).equals(before)).toBe(true);
    await expect(runFn(["render", "bounded", "--max-resources", "ten"], dir)).rejects.toThrow(
      'Error: --max-resources must be a whole number of at least 1, not "ten"',
    );
  });
});
