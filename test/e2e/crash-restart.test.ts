import type { Octokit } from "@octokit/rest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kptfile, packageVariant, settings } from "../util/krm.js";
import { type ChildWorld, kill9, proposeEdit, startApp, startChildWorld, stopApp } from "./app-child.js";

const KPTFILE = kptfile("web");
const cm = settings;
const VARIANT = packageVariant({ name: "c1", upstream: "apps/web", repo: "cluster-01", package: "web" });

/**
 * The app killed with SIGKILL at the worst moments, then started again: the forge (in this process)
 * holds the request the test wants the app to die in (a hang fault), so the kill lands exactly there.
 */
describe("porchlight killed mid-job and restarted (app as a child process, forge over HTTP and git)", () => {
  let w: ChildWorld;
  let forge: ChildWorld["forge"];
  let creds: ChildWorld["creds"];
  let apps: ChildWorld["apps"];
  const owner = "acme";
  let rest: (user: string) => Octokit;

  beforeAll(async () => {
    w = await startChildWorld(
      {
        "README.md": "# blueprints\n",
        ".github/porchlight.yml": "mergeMethod: merge\n",
        ".porchlight/variants/fleet.yaml": VARIANT,
        "apps/web/Kptfile": KPTFILE,
        "apps/web/cm.yaml": cm("0"),
      },
      ["cluster-01"],
    );
    ({ forge, creds, apps, rest } = w);
  });
  afterAll(async () => {
    await w?.stop();
  });

  const store = () => forge.core.store.data;
  const repoId = (name: string) => forge.repo(`acme/${name}`).id;
  const pullOf = (name: string, number: number) =>
    store().issues.find((i) => i.repoId === repoId(name) && i.number === number)?.pull;
  const checked = (sha: string, names: string[]) =>
    names.every((n) =>
      store().checkRuns.some((r) => r.headSha === sha && r.name === n && r.status === "completed"),
    );
  const commentsOn = (number: number) =>
    store().comments.filter((c) => c.repoId === repoId("blueprints") && c.number === number);
  const refs = async (name: string, prefix: string) =>
    (await rest("alice").git.listMatchingRefs({ owner, repo: name, ref: prefix })).data.map((r) => ({
      ref: r.ref,
      sha: r.object.sha,
    }));

  it("kill -9 between the merge and the tag, then mid fan-out: the tag, the reply and the downstream PR each exist once", async () => {
    apps.push(await startApp(forge, creds));
    // A proposal, checked by the first app.
    const pr = await proposeEdit(w, "drafts/apps/web/one", {
      path: "apps/web/cm.yaml",
      text: cm("1"),
      message: "v: 1",
    });
    await forge.waitFor(() => {
      const p = pullOf("blueprints", pr.number);
      return p && checked(p.headSha, ["porchlight/render", "porchlight/guardrails"]);
    }, "the proposal's checks");

    // /approve: the app merges, then dies while GitHub holds its tag's push (git, the first push after
    // the merge); the push is then dropped unanswered, as the dead app's git would have seen it.
    const tagging = forge.faults.add({
      route: "/{owner}/{repo}.git/git-receive-pack",
      method: "POST",
      hang: true,
      reset: true,
      times: 1,
    });
    // And the next app dies in fan-out: branch pushed to the downstream, its PR request held.
    const opening = forge.faults.add({
      route: "/repos/{owner}/{repo}/pulls",
      method: "POST",
      hang: true,
      times: 1,
    });
    const { data: approve } = await rest("bob").issues.createComment({
      owner,
      repo: "blueprints",
      issue_number: pr.number,
      body: "/approve",
    });
    await forge.waitFor(() => forge.faults.holding(tagging) === 1, "the tag request", 20_000);
    expect(pullOf("blueprints", pr.number)?.merged).toBe(true);
    await kill9(forge, apps[0]!);
    // its git child outlives it a moment: the held push is dropped, never answered
    forge.faults.release(tagging);
    await forge.waitFor(() => forge.faults.holding(tagging) === 0, "the dead app's request let go");
    expect(await refs("blueprints", "tags/apps/web/")).toEqual([]);
    const reply = () => commentsOn(pr.number).filter((c) => c.body.includes(`reply comment=${approve.id}`));
    expect(reply()).toEqual([]);

    // Restart: the start-up sweep tags, answers /approve, and fans out until GitHub holds its PR request.
    apps.push(await startApp(forge, creds));
    await forge.waitFor(() => reply().length > 0, "the reply to /approve", 20_000);
    await forge.waitFor(() => forge.faults.holding(opening) === 1, "the downstream PR request", 20_000);
    const pushed = await refs("cluster-01", "heads/porchlight/variant/");
    expect(pushed).toHaveLength(1);
    await kill9(forge, apps[1]!);
    await forge.waitFor(() => forge.faults.holding(opening) === 0, "the dead app's request let go");
    const downstreamPulls = () => store().issues.filter((i) => i.repoId === repoId("cluster-01") && i.pull);
    expect(downstreamPulls()).toEqual([]);

    // Restart again: the start-up sweep opens the downstream PR from the branch already pushed.
    apps.push(await startApp(forge, creds));
    await forge.waitFor(() => downstreamPulls().length > 0, "the downstream PR", 20_000);
    await stopApp(forge, apps[2]!);

    const merge = pullOf("blueprints", pr.number)?.mergeCommitSha;
    expect(await refs("blueprints", "tags/apps/web/")).toEqual([
      { ref: "refs/tags/apps/web/v1", sha: merge },
    ]);
    expect(reply().map((c) => c.body)).toEqual([expect.stringContaining("`apps/web/v1`")]);
    expect(downstreamPulls().map((i) => [i.state, i.pull?.headRef])).toEqual([
      ["open", pushed[0]?.ref.slice(11)],
    ]);
    expect(await refs("cluster-01", "heads/porchlight/variant/")).toEqual(pushed);
  });
});
