import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "../..");

/**
 * The README's first command, `npx porchlight fn render examples/hello-world --output stdout`, in a
 * folder npx has not seen yet (a fresh clone; here a fresh npx cache): npx links the folder into its
 * cache and runs its `prepare` there, which built all of dist/ again, silently, before the command ran.
 */
describe("the first npx porchlight of a folder", () => {
  it("renders at once, without building dist/ again", () => {
    const cache = mkdtempSync(join(tmpdir(), "porchlight-npx-cache-"));
    const bundle = join(ROOT, "dist", "bundle", "main.js");
    const before = statSync(bundle).mtimeMs;
    try {
      const args = ["fn", "render", "examples/hello-world", "--output", "stdout"];
      const npx = spawnSync("npx", ["--yes", "porchlight", ...args], {
        cwd: ROOT,
        encoding: "utf8",
        env: { ...process.env, npm_config_cache: cache, npm_config_update_notifier: "false" },
      });
      expect(npx.status, npx.stderr).toBe(0);
      const direct = spawnSync(process.execPath, [join(ROOT, "bin", "porchlight.js"), ...args], {
        cwd: ROOT,
        encoding: "utf8",
      });
      expect(npx.stdout).toBe(direct.stdout);
      expect(npx.stdout).toContain("kind: Deployment");
      // dist/ was not built again (a build writes the bundle anew)
      expect(statSync(bundle).mtimeMs).toBe(before);
    } finally {
      rmSync(cache, { recursive: true, force: true });
    }
  }, 120_000);
});
