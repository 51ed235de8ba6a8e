import type { Octokit } from "@octokit/rest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { packageVariant } from "../util/krm.js";
import { type ChildWorld, kill9, proposeEdit, startApp, startChildWorld, stopApp } from "./app-child.js";

/**
 * A rollout interrupted twice by kill -9 (the app a child process, the forge in this process holding the
 * request the app must die in): while opening the dev wave's first pull request, and while automerging
 * it. Restarted, the app finishes the rollout from GitHub's facts alone: every downstream has one pull
 * request, each merged once and tagged once, prod opens after dev, and the dashboard is one issue with
 * no comments.
 */
const REPOS = ["dev-1", "dev-2", "prod-1"];
const pv = (repo: string) =>
  packageVariant({ name: repo, labels: `{env: ${repo.split("-")[0]}}`, upstream: "web", repo });
const CONFIG = `rollout:
  steps:
    - name: dev
      labels: {env: dev}
      automerge: true
    - name: prod
      labels: {env: prod}
      automerge: true
`;
const cm = (v: string) =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  v: "${v}"\n`;

describe("a rollout killed mid-wave and restarted", () => {
  let w: ChildWorld;
  let forge: ChildWorld["forge"];
  let creds: ChildWorld["creds"];
  let apps: ChildWorld["apps"];
  const owner = "acme";
  let alice: Octokit;
  let bob: Octokit;
  // A sweep every half second: what a restart leaves, the next sweep picks up.
  const start = async () => {
    apps.push(await startApp(forge, creds, { PORCHLIGHT_RECONCILE_INTERVAL_MS: "500" }));
  };
  const store = () => forge.core.store.data;
  const pullsOf = (repo: string) => {
    const id = forge.repo(`acme/${repo}`).id;
    return store().issues.filter((i) => i.repoId === id && i.pull);
  };

  beforeAll(async () => {
    w = await startChildWorld(
      {
        ".github/porchlight.yml": CONFIG,
        ".porchlight/variants/fleet.yaml": REPOS.map(pv).join("---\n"),
        "web/Kptfile": "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: web\n",
        "web/cm.yaml": cm("0"),
      },
      REPOS,
    );
    ({ forge, creds, apps } = w);
    alice = w.rest("alice");
    bob = w.rest("bob");
  });
  afterAll(async () => {
    await w?.stop();
  });

  it("ends with one pull request per downstream, each merged and tagged once, and one dashboard", async () => {
    await start();
    const pr = await proposeEdit(w, "drafts/web/one", {
      path: "web/cm.yaml",
      text: cm("1"),
      message: "v: 1",
    });
    await forge.waitFor(
      () =>
        store().checkRuns.some(
          (r) => r.headSha === pr.head.sha && r.name === "porchlight/guardrails" && r.status === "completed",
        ),
      "the proposal's checks",
      30_000,
    );

    // Killed while opening the dev wave's first pull request.
    const opening = forge.faults.add({
      route: "/repos/{owner}/{repo}/pulls",
      method: "POST",
      hang: true,
      times: 1,
    });
    await bob.issues.createComment({ owner, repo: "blueprints", issue_number: pr.number, body: "/approve" });
    await forge.waitFor(() => forge.faults.holding(opening) === 1, "a dev pull request being opened", 30_000);
    await kill9(forge, apps[0]!);
    await forge.waitFor(() => forge.faults.holding(opening) === 0, "the dead app's request let go");

    // Killed again while automerging a dev pull request.
    const merging = forge.faults.add({
      route: "/repos/{owner}/{repo}/pulls/{pull_number}/merge",
      method: "PUT",
      hang: true,
      times: 1,
    });
    await start();
    await forge.waitFor(
      () => forge.faults.holding(merging) === 1,
      "a dev pull request being automerged",
      60_000,
    );
    expect(pullsOf("prod-1")).toEqual([]); // dev is not done: prod waits
    await kill9(forge, apps[1]!);
    await forge.waitFor(() => forge.faults.holding(merging) === 0, "the dead app's request let go");

    // Restarted: dev is automerged, then prod opens and is automerged.
    await start();
    await forge.waitFor(
      () => REPOS.every((r) => pullsOf(r).some((i) => i.pull?.merged)),
      "every downstream's pull request merged",
      90_000,
    );
    await stopApp(forge, apps[2]!);

    for (const repo of REPOS) {
      expect(
        pullsOf(repo).map((i) => [i.state, i.pull?.merged]),
        repo,
      ).toEqual([["closed", true]]);
      const tags = (await alice.repos.listTags({ owner, repo })).data.map((t) => t.name);
      expect(tags, repo).toEqual(["web/v1"]);
    }
    const bp = forge.repo("acme/blueprints").id;
    const dashboards = store().issues.filter((i) => i.repoId === bp && !i.pull);
    expect(dashboards.map((i) => i.title)).toEqual(["porchlight fan-out dashboard"]);
    expect(store().comments.filter((c) => c.repoId === bp && c.number === dashboards[0]!.number)).toEqual([]);
    expect(dashboards[0]!.body).toContain("Every step is done.");
    // The /approve answered once, whatever the kills.
    const replies = store().comments.filter(
      (c) => c.repoId === bp && c.number === pr.number && c.body.includes("reply comment="),
    );
    expect(replies).toHaveLength(1);
  }, 240_000);
});
