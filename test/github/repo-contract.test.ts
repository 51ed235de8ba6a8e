import { mkdtempSync } from "node:fs";
import { join } from "node:path";
import { world } from "../../packages/forge/test/helpers.js";
import { installationPort, repositoryOf } from "../../src/github/installation.js";
import { tokenOctokit } from "../../src/github/octokit.js";
import { type OwnWrites, ownWrites } from "../../src/github/own-writes.js";
import type { Permission } from "../../src/github/port.js";
import { FakeRepo } from "../jobs/fake-repo.js";
import { repoPortContract } from "./repo-contract.js";

repoPortContract("FakeRepo (in memory)", async () => {
  const repo = new FakeRepo("acme/blueprints");
  repo.commit("main", { "README.md": "# blueprints\n" }, "initial", true);
  return {
    port: repo,
    permit: async (user, level) => {
      repo.permissions.set(user, level);
    },
    cleanup: async () => {},
  };
});

/** The Octokit adapter on the embedded forge, with the app's own writes kept (`own`) or not. */
const onForge = (own?: OwnWrites) => async () => {
  const w = await world();
  const client = tokenOctokit(w.token, { apiUrl: w.forge.apiUrl, writeIntervalMs: 0, rateLimitRetries: 0 });
  const { data } = await w.octokit.rest.repos.get({ owner: "acme", repo: "blueprints" });
  const dir = mkdtempSync(join(w.tmp, "cache-"));
  const port = installationPort(client, dir, undefined, false, undefined, undefined, own).repo(
    repositoryOf(data),
  );
  return {
    port,
    permit: async (user: string, level: Exclude<Permission, "none">) => {
      w.forge.createUser(user);
      w.forge.setPermission("acme/blueprints", user, level);
    },
    cleanup: () => w.cleanup(),
  };
};

repoPortContract("the Octokit adapter on the embedded forge", onForge());

repoPortContract(
  "the Octokit adapter on the embedded forge, the app's own writes kept",
  onForge(ownWrites()),
);
