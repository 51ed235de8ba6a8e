import { describe, expect, it } from "vitest";
import {
  annotateMessage,
  annotationForBranch,
  kptAnnotations,
  publishedWorkspace,
  revisionTasks,
  taggedRevisions,
} from "../../src/lifecycle/kpt-trailer.js";

describe("Porch's kpt: commit lines", () => {
  it("appends one as Porch does, after a blank line, in Porch's field order, once per package", () => {
    const message = annotateMessage("Render\n", {
      package: "net/dns",
      workspaceName: "edit",
      task: { type: "render" },
    });
    expect(message).toBe(
      'Render\n\nkpt:{"package":"net/dns","workspaceName":"edit","task":{"type":"render"}}\n',
    );
    expect(annotateMessage(message, { package: "net/dns", workspaceName: "other" })).toBe(message);
  });

  it.each([
    ['Intializing package\n\nkpt:{"package":"a","workspaceName":"w","revision":"1"}\n', "a", "w"],
    ['msg\n  kpt:{"package":"a","workspaceName":"w"}', "a", "w"],
    ['msg\n\nkpt:{"package":"b","workspaceName":"x"}\nkpt:{"package":"a","workspaceName":"y"}\n', "a", "y"],
    ['msg\n\nkpt:not json\nkpt:{"package":"a","workspaceName":"z"}\n', "a", "z"],
    ["Merge pull request #4 from acme/drafts/app/w1\n\nPropose app", "app", "w1"],
    ["Merge pull request #4 from acme/drafts/other/w1\n\nPropose", "app", undefined],
    ["Publish app/v1 (#4)", "app", undefined],
    ['msg\n\nkpt:{"package":"a","revision":"1"}\n', "a", undefined],
  ])("reads the workspace of %j for %s", (message, pkg, workspace) => {
    expect(publishedWorkspace(message, pkg)).toBe(workspace);
  });

  it("reads every revision tag's workspace in one read of the messages, other tags left out", async () => {
    const asked: string[][] = [];
    const messages = new Map([
      ["a1", 'Publish\n\nkpt:{"package":"net/dns","workspaceName":"edit"}\n'],
      ["b2", "Merge pull request #4 from acme/drafts/app/w1\n\nPropose app"],
      ["c3", "a tag by hand"],
    ]);
    const tagged = await taggedRevisions(
      [
        ["net/dns/v1", "a1"],
        ["app/v2", "b2"],
        ["app/v3", "c3"],
        ["release-1.0", "d4"],
      ],
      async (shas) => {
        asked.push(shas);
        return messages;
      },
    );
    expect(asked).toEqual([["a1", "b2", "c3"]]);
    expect(tagged).toEqual([
      { tag: "net/dns/v1", sha: "a1", package: "net/dns", revision: 1, workspace: "edit" },
      { tag: "app/v2", sha: "b2", package: "app", revision: 2, workspace: "w1" },
      { tag: "app/v3", sha: "c3", package: "app", revision: 3 },
    ]);
    expect(
      await taggedRevisions([["release-1.0", "d4"]], async () => Promise.reject(new Error("asked"))),
    ).toEqual([]);
  });

  it("skips lines that are not an annotation, as Porch skips them", () => {
    expect(
      kptAnnotations('kpt:{"workspaceName":"w"}\nkpt:[1]\nkpt:{"package":"p","task":{"type":"init"}}'),
    ).toEqual([{ package: "p", task: { type: "init" } }]);
  });

  it.each([
    ["drafts/net/dns/edit", { package: "net/dns", workspaceName: "edit" }],
    ["porchlight/variant/app/prod", { package: "app" }],
    ["proposed/app/ready", { package: "app", workspaceName: "ready" }],
    ["deletionProposed/app/first", { package: "app", workspaceName: "first" }],
    ["porchlight/catalog", undefined],
    ["main", undefined],
  ])("annotates a commit to %s", (branch, annotation) => {
    expect(annotationForBranch(branch)).toEqual(annotation);
  });

  it("reads a revision's tasks as Porch's loadTasks does: the oldest first task, up to its clone or init", () => {
    const line = (a: object) => `m\n\nkpt:${JSON.stringify(a)}\n`;
    const upgrade = { type: "upgrade", upgrade: { newUpstreamRef: { name: "up.p.v2" } } };
    const history = [
      line({ package: "p", workspaceName: "w2", task: { type: "render" } }),
      line({ package: "p", workspaceName: "w2", task: upgrade }),
      line({ package: "q", workspaceName: "w2", task: { type: "init" } }),
      line({ package: "p", workspaceName: "w1", task: { type: "clone", clone: {} } }),
    ];
    expect(revisionTasks(history, "p", "w2")).toEqual([upgrade]);
    expect(revisionTasks(history, "p", "w1")).toEqual([{ type: "clone", clone: {} }]);
    expect(revisionTasks(history, "p", "w3")).toEqual([]);
    // a revision from before workspaceName: its revision stands for the workspace
    expect(
      revisionTasks([line({ package: "p", revision: "v1", task: { type: "init" } })], "p", "v1"),
    ).toEqual([{ type: "init" }]);
  });
});
