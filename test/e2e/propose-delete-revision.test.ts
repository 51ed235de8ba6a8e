import { beforeAll, describe, expect, it } from "vitest";
import { commentsOn, rpkgAs, tagsOf, useWorld, webSettings } from "./harness.js";

const KPTFILE = "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: web\n";

/**
 * `/propose-delete v2` on the pull request that published a revision does what `rpkg propose-delete` of
 * that revision does: a deletion proposal of the revision alone (Porch's deletionProposed/ branch, a pull
 * request labelled porchlight/deletion changing no file); approving it deletes that tag, the other
 * revisions and the package on main stay, and the latest revision is the one before.
 */
describe("/propose-delete <revision>: one published revision, as rpkg propose-delete", () => {
  const [owner, repo] = ["acme", "blueprints"];
  const R = "--repository=acme/blueprints";
  let second: number;
  /** `rpkg get` of the package, as rows without padding. */
  const listed = async () =>
    (await rpkgAs(w, "alice", ["get", R, "--name=apps/web"])).stdout
      .trim()
      .split("\n")
      .slice(1)
      .map((l) => l.trim().split(/\s+/).join(" "));

  const w = useWorld({});
  beforeAll(async () => {
    const first = await w.propose("drafts/apps/web/first", {
      "apps/web/Kptfile": KPTFILE,
      "apps/web/settings.yaml": webSettings("1"),
    });
    expect(await w.say("bob", first.number, "/approve")).toContain("Published");
    ({ number: second } = await w.propose("drafts/apps/web/second", {
      "apps/web/settings.yaml": webSettings("2"),
    }));
    expect(await w.say("bob", second, "/approve")).toContain("Published");
  });

  it("refuses a revision that was never published, naming the ones that were", async () => {
    const reply = await w.say("bob", second, "/propose-delete v7");
    expect(reply).toContain("`apps/web/v7` is not a published revision of this repository");
    expect(reply).toContain("`apps/web/v1`, `apps/web/v2`");
  });

  it("opens the revision's deletion proposal; rpkg get lists it DeletionProposed", async () => {
    const reply = await w.say("bob", second, "/propose-delete v2");
    expect(reply).toMatch(/Proposed deleting revision \*\*apps\/web\/v2\*\* alone in #\d+/);
    const open = (await w.users.alice!.rest.pulls.list({ owner, repo, state: "open" })).data;
    const deletion = open.find((p) => p.labels.some((l) => l.name === "porchlight/deletion"));
    expect(deletion?.head.ref).toBe("deletionProposed/apps/web/second");
    expect(reply).toContain(`#${deletion?.number}`);
    const files = await w.users.alice!.rest.pulls.listFiles({ owner, repo, pull_number: deletion!.number });
    expect(files.data).toEqual([]);
    expect(await listed()).toEqual([
      "blueprints.apps.web.main apps/web main -1 false Published blueprints",
      "blueprints.apps.web.first apps/web first 1 false Published blueprints",
      "blueprints.apps.web.second apps/web second 2 true DeletionProposed blueprints",
    ]);
    // asked again, the answer names the same proposal
    expect(await w.say("bob", second, "/propose-delete apps/web/v2")).toContain(
      `Already proposed deleting revision **apps/web/v2** alone in #${deletion?.number}`,
    );
  });

  it("approved, the tag is gone, the others stay, and the revision before is the latest", async () => {
    const before = await tagsOf(w);
    const open = (await w.users.alice!.rest.pulls.list({ owner, repo, state: "open" })).data;
    const deletion = open.find((p) => p.head.ref === "deletionProposed/apps/web/second")!;
    await w.users.bob!.rest.pulls.createReview({
      owner,
      repo,
      pull_number: deletion.number,
      event: "APPROVE",
    });
    await w.settle();
    expect(await tagsOf(w)).toEqual({ "apps/web/v1": before["apps/web/v1"] });
    expect((await commentsOn(w, deletion.number)).join("\n")).toContain("Deleted revision **apps/web/v2**");
    expect(await listed()).toEqual([
      "blueprints.apps.web.main apps/web main -1 false Published blueprints",
      "blueprints.apps.web.first apps/web first 1 true Published blueprints",
    ]);
    // the package stays on main, as v2 left it
    const main = await w.users.alice!.rest.repos.getContent({ owner, repo, path: "apps/web/settings.yaml" });
    expect(Buffer.from((main.data as { content: string }).content, "base64").toString("utf8")).toContain(
      'v: "2"',
    );
  });
});
