import { defineConfig } from "vitest/config";

/**
 * The slow end-to-end runs kept out of `npm test` (`npm run test:slow`): the fleet of replicas as
 * child processes behind a proxy, one killed mid fan-out (docs/scaling.md).
 */
export default defineConfig({
  // The forge from its sources, as in vitest.config.ts.
  ssr: { resolve: { conditions: ["@porchlight/source", "node", "development|production"] } },
  test: {
    include: ["test/**/*.slow.ts"],
    testTimeout: 600_000,
    hookTimeout: 120_000,
    pool: "forks",
    globalSetup: ["test/util/kpt-setup.ts"],
  },
});
