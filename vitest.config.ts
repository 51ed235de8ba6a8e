import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

/**
 * The files that change what the whole process sees and cannot all give it back: nock patches Node's
 * http and fetch when it is imported, and token-expiry fakes Date (a library that took Date meanwhile
 * keeps the fake, frozen once it is restored: replicas' jobs then never ran). Each runs in a process of
 * its own.
 */
const PROCESS_WIDE = [
  "test/app/serve-ghe.test.ts",
  "test/e2e/token-expiry.test.ts",
  "test/github/openapi-examples.test.ts",
  "test/github/openapi-writes.test.ts",
];

export default defineConfig({
  // The forge (packages/forge) from its sources, not its build: its `@porchlight/source` export, as
  // tsconfig.json's customConditions reads it. Vitest hands the same to its workers as --conditions.
  ssr: { resolve: { conditions: ["@porchlight/source", "node", "development|production"] } },
  test: {
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
    projects: [
      {
        extends: true,
        // One process runs many files one after another, importing src/, probot and Octokit once, not
        // once a file: the suite took 487 s of CPU instead of 566 s, the small unit files half of what
        // they took. A file that changes the process (PATH, the working directory, an environment
        // variable) puts it back in afterAll or finally.
        test: { name: "shared", include: ["test/**/*.test.ts"], exclude: PROCESS_WIDE, isolate: false },
      },
      { extends: true, test: { name: "own-process", include: PROCESS_WIDE, isolate: true } },
      // The forge's own tests, by its own configuration.
      "packages/forge",
    ],
  },
});
