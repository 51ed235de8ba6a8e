import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    // PORCHLIGHT_REQUIRE_KPT=1 (CI): no kpt fails the run here, before the comparisons could skip.
    globalSetup: ["test/util/kpt-setup.ts"],
    // Tests never depend on wall-clock time; the timeout only stops a hung test.
  },
});
