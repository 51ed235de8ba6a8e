import { describe, expect, it } from "vitest";
import { documented, documentedGitHub, requestProblems } from "./openapi-oracle.js";

/**
 * The adapter's writes against GitHub's documentation: each request body is checked against the
 * operation's documented schema (no field GitHub does not know, none it requires missing, values
 * from its enums), and each answer is GitHub's own example response, read back as the port says.
 */
const R = "/repos/octocat/Hello-World";
const P = "/repos/{owner}/{repo}";

describe("the Octokit adapter's writes, checked against GitHub's documented requests and answers", () => {
  const github = documentedGitHub();

  /** Expects each recorded body to be a documented request to `method path`, and returns them. */
  function valid(method: string, path: string, sent: unknown[]): unknown[] {
    expect(sent.flatMap((body) => requestProblems(method, path, body))).toEqual([]);
    return sent;
  }

  it("opens a pull request and reads GitHub's answer as the port's pull request", async () => {
    const sent: unknown[] = [];
    documented("POST", `${R}/pulls`, `${P}/pulls`, "201", sent);
    const pr = await github
      .port()
      .createPull({ head: "drafts/app/edit", base: "main", title: "Propose app", body: "b" });
    expect(valid("POST", `${P}/pulls`, sent)).toEqual([
      { head: "drafts/app/edit", base: "main", title: "Propose app", body: "b" },
    ]);
    expect(pr).toMatchObject({ number: 1347, state: "open", headRef: "new-topic", baseRef: "master" });
  });

  it("closes a pull request, then merges one naming the reviewed head, and returns the merge commit", async () => {
    const sent: unknown[] = [];
    const merged: unknown[] = [];
    documented("PATCH", `${R}/pulls/1347`, `${P}/pulls/{pull_number}`, "200", sent);
    documented("PUT", `${R}/pulls/1347/merge`, `${P}/pulls/{pull_number}/merge`, "200", merged);
    await github.port().updatePull(1347, { state: "closed" });
    const sha = await github
      .port()
      .mergePull(1347, { sha: "e5bd3914", method: "merge", title: "Publish app v1" });
    expect(valid("PATCH", `${P}/pulls/{pull_number}`, sent)).toEqual([{ state: "closed" }]);
    expect(valid("PUT", `${P}/pulls/{pull_number}/merge`, merged)).toEqual([
      { sha: "e5bd3914", merge_method: "merge", commit_title: "Publish app v1" },
    ]);
    expect(sha).toBe("6dcb09b5b57875f334f61aebed695e2e4193db5e");
  });

  it("creates a check run GitHub has not seen, sending more than 50 annotations in batches", async () => {
    const sha = "ce587453ced02b1526dfb4cb910479d431683101";
    const created: unknown[] = [];
    const updated: unknown[] = [];
    documented("GET", `${R}/commits/${sha}/check-runs`, `${P}/commits/{ref}/check-runs`);
    documented("POST", `${R}/check-runs`, `${P}/check-runs`, "201", created);
    const annotations = Array.from({ length: 51 }, (_, i) => ({
      path: "app/deploy.yaml",
      start_line: i + 1,
      end_line: i + 1,
      annotation_level: "failure" as const,
      message: `problem ${i + 1}`,
    }));
    documented("PATCH", `${R}/check-runs/4`, `${P}/check-runs/{check_run_id}`, "200", updated);
    const id = await github.port().upsertCheckRun({
      name: "porchlight/render",
      headSha: sha,
      status: "completed",
      conclusion: "failure",
      externalId: "tree-1",
      title: "Render failed",
      summary: "51 problems",
      annotations,
    });
    expect(id).toBe(4);
    const [first] = valid("POST", `${P}/check-runs`, created) as {
      output: { annotations: unknown[] };
      name: string;
    }[];
    expect(first).toMatchObject({
      name: "porchlight/render",
      head_sha: sha,
      conclusion: "failure",
      external_id: "tree-1",
    });
    expect(first?.output.annotations).toHaveLength(50);
    const [rest] = valid("PATCH", `${P}/check-runs/{check_run_id}`, updated) as {
      output: { annotations: unknown[] };
    }[];
    expect(rest?.output.annotations).toEqual([annotations[50]]);
  });

  it("updates the check run GitHub already has under that name instead of adding a second", async () => {
    const sha = "ce587453ced02b1526dfb4cb910479d431683101";
    const updated: unknown[] = [];
    documented("GET", `${R}/commits/${sha}/check-runs`, `${P}/commits/{ref}/check-runs`);
    documented("PATCH", `${R}/check-runs/4`, `${P}/check-runs/{check_run_id}`, "200", updated);
    const id = await github
      .port()
      .upsertCheckRun({ name: "mighty_readme", headSha: sha, status: "in_progress" });
    expect(id).toBe(4);
    expect(valid("PATCH", `${P}/check-runs/{check_run_id}`, updated)).toEqual([{ status: "in_progress" }]);
  });

  it("writes a marked comment once: created when missing, edited in place when found, left when equal", async () => {
    const created: unknown[] = [];
    const edited: unknown[] = [];
    const comments = `${P}/issues/{issue_number}/comments`;
    documented("GET", `${R}/issues/1347/comments`, comments);
    documented("POST", `${R}/issues/1347/comments`, comments, "201", created);
    const first = await github
      .port()
      .ensureComment(1347, "<!-- porchlight:summary -->", "<!-- porchlight:summary -->\nok");
    expect(first).toEqual({ id: 1, action: "created" });
    expect(valid("POST", comments, created)).toEqual([{ body: "<!-- porchlight:summary -->\nok" }]);

    documented("GET", `${R}/issues/1347/comments`, comments);
    documented("PATCH", `${R}/issues/comments/1`, `${P}/issues/comments/{comment_id}`, "200", edited);
    expect(await github.port().ensureComment(1347, "Me too", "Me too, and more")).toEqual({
      id: 1,
      action: "updated",
    });
    expect(valid("PATCH", `${P}/issues/comments/{comment_id}`, edited)).toEqual([
      { body: "Me too, and more" },
    ]);

    documented("GET", `${R}/issues/1347/comments`, comments);
    expect(await github.port().ensureComment(1347, "Me too", "Me too")).toEqual({
      id: 1,
      action: "unchanged",
    });
  });

  it("comments, reacts to a comment and labels a pull request", async () => {
    const comment: unknown[] = [];
    const reaction: unknown[] = [];
    const labels: unknown[] = [];
    documented("POST", `${R}/issues/1347/comments`, `${P}/issues/{issue_number}/comments`, "201", comment);
    documented(
      "POST",
      `${R}/issues/comments/1/reactions`,
      `${P}/issues/comments/{comment_id}/reactions`,
      "201",
      reaction,
    );
    documented("POST", `${R}/issues/1347/labels`, `${P}/issues/{issue_number}/labels`, "200", labels);
    expect(await github.port().createComment(1347, "Rendered.")).toBe(1);
    await github.port().react(1, "eyes");
    await github.port().addLabels(1347, ["porchlight/delete"]);
    expect(valid("POST", `${P}/issues/{issue_number}/comments`, comment)).toEqual([{ body: "Rendered." }]);
    expect(valid("POST", `${P}/issues/comments/{comment_id}/reactions`, reaction)).toEqual([
      { content: "eyes" },
    ]);
    expect(labels).toEqual([{ labels: ["porchlight/delete"] }]);
  });

  it("the documented schema refuses a request GitHub would refuse (the oracle itself bites)", () => {
    expect(
      requestProblems("POST", `${P}/check-runs`, {
        head_sha: "abc",
        status: "done",
        colour: "red",
        output: {
          title: "t",
          summary: "s",
          annotations: [{ path: "a", start_line: 1, end_line: 1, annotation_level: "fatal", message: "m" }],
        },
      }),
    ).toEqual([
      "body.name: required, missing",
      'body.status: "done" is not one of queued,in_progress,completed',
      "body.colour: not a documented field",
      'body.output.annotations[0].annotation_level: "fatal" is not one of notice,warning,failure',
    ]);
  });
});
