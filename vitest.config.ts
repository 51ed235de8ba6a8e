import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    // Two test files at once even on two cores (vitest's default is one fewer than the cores: one
    // there): the end-to-end files wait on git processes and HTTP for much of their time, so a second
    // file fills the gaps. On 2 cores, 13 of the slowest files took 124 s instead of 178 s, the same
    // CPU time.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // PORCHLIGHT_REQUIRE_KPT=1 (CI): no kpt fails the run here, before the comparisons could skip.
    globalSetup: ["test/util/kpt-setup.ts"],
    // Tests never depend on wall-clock time; the timeout only stops a hung test.
  },
});
