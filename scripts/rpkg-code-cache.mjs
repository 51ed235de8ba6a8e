// Makes the V8 code cache of the CommonJS bundle of `porchlight rpkg` and `repo` (dist/bundle/rpkg.cjs →
// rpkg.cjs.cache): it runs the bundle's verbs as a person does — the help, a repository registered and
// listed, a package made, listed, pulled, pushed, proposed and approved — against the embedded forge
// (packages/forge, built before the command line), then has V8 write out the bytecode of every function
// that ran. Run by scripts/bundle-cli.mjs, in a process of its own, under the flags of a run
// (bin/short-run.js), as scripts/code-cache.mjs does for `fn`.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startForge } from "@porchlight/forge";
import { loadBundle, tuneForShortRun } from "../bin/short-run.js";
import { runForCache } from "./cache-run.mjs";

const bundle = process.argv[2];
if (!bundle) throw new Error("usage: node scripts/rpkg-code-cache.mjs BUNDLE.cjs");
tuneForShortRun();
const { exports, script } = loadBundle(bundle);

const work = mkdtempSync(join(tmpdir(), "porchlight-rpkg-code-cache-"));
const forge = await startForge();
try {
  forge.setWebhookUrl(null);
  forge.createUser("acme", { type: "Organization" });
  await forge.createRepo("acme/blueprints", { autoInit: true });
  await forge.createRepo("acme/.porchlight", { autoInit: true });
  const app = forge.createApp();
  const bot = forge.installationToken(forge.createInstallation(app.appId, "acme").id);
  const person = (login) => {
    const { pat } = forge.createUser(login, { pat: true });
    for (const repo of ["acme/blueprints", "acme/.porchlight"]) forge.setPermission(repo, login, "write");
    return pat;
  };
  const [alice, bob] = [person("alice"), person("bob")];
  const run = (token, argv) =>
    runForCache(exports.main, argv, work, {
      PATH: process.env.PATH ?? "",
      GH_TOKEN: token,
      PORCHLIGHT_API_URL: forge.apiUrl,
      // the commands' cache on disk (cli/disk-cache.ts), in the work directory: its code is compiled too
      XDG_CACHE_HOME: join(work, "cache"),
    });
  const R = "--repository=acme/blueprints";
  const name = "blueprints.app.cache";
  await run(alice, ["rpkg", "--help"]);
  await run(alice, ["rpkg", "get", "--help"]);
  await run(alice, ["repo", "--help"]);
  await run(alice, ["repo", "register", "--namespace=acme", "acme/blueprints"]);
  await run(alice, ["repo", "get", "--namespace=acme"]);
  await run(alice, ["rpkg", "init", "app", "--workspace=cache", R]);
  // twice: the second listing also compiles what a listing of revisions already seen does (read from
  // the cache on disk)
  await run(alice, ["rpkg", "get", R]);
  await run(alice, ["rpkg", "get", R]);
  await run(alice, ["rpkg", "pull", name, join(work, "app"), R]);
  writeFileSync(
    join(work, "app", "config.yaml"),
    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\ndata:\n  key: value\n",
  );
  await run(alice, ["rpkg", "push", name, join(work, "app"), R]);
  await run(alice, ["rpkg", "propose", name, R]);
  await greenChecks(bot);
  await run(bob, ["rpkg", "approve", name, R]);
  await run(alice, ["rpkg", "get", R]);
  writeFileSync(`${bundle}.cache`, script.createCachedData());
} finally {
  await forge.stop();
  rmSync(work, { recursive: true, force: true });
}

/** The bot's checks on the open proposal's head, green, as its render and guardrails would leave them. */
async function greenChecks(token) {
  const api = (path, init = {}) =>
    fetch(`${forge.apiUrl}/repos/acme/blueprints${path}`, {
      ...init,
      headers: { authorization: `token ${token}`, "content-type": "application/json" },
    }).then(async (r) => {
      if (!r.ok) throw new Error(`${init.method ?? "GET"} ${path}: ${r.status} ${await r.text()}`);
      return r.json();
    });
  const [pull] = await api("/pulls?state=open");
  if (!pull) throw new Error("rpkg propose opened no pull request");
  for (const name of ["porchlight/render", "porchlight/guardrails"])
    await api("/check-runs", {
      method: "POST",
      body: JSON.stringify({ name, head_sha: pull.head.sha, status: "completed", conclusion: "success" }),
    });
}
