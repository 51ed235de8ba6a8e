import { defineConfig } from "vitest/config";

/** The forge's own tests: a forge over real HTTP and git in each file, nothing of porchlight's app. */
export default defineConfig({
  test: {
    name: "forge",
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    // One process runs the files one after another, importing Octokit and probot once, as the app's
    // shared project does (../../vitest.config.ts).
    isolate: false,
  },
});
