import { describe, expect, it } from "vitest";
import { readJobData } from "../../src/app/tasks.js";

const repository = {
  id: { owner: "acme", repo: "blueprints" },
  fullName: "acme/blueprints",
  topics: [],
  defaultBranch: "main",
  cloneUrl: "http://forge/acme/blueprints.git",
  archived: false,
};

/** A job read back from Redis is checked before it runs: a replica of another version may have queued it. */
describe("a queued job read back from Redis", () => {
  it("runs as queued when its envelope and its task's arguments are what this version reads", () => {
    const job = { kind: "check", key: "7", task: "check", args: { pull: 7 }, repository, installationId: 3 };
    expect(readJobData(job)).toEqual(job);
    const published = {
      kind: "fanout",
      key: "acme/blueprints",
      task: "fanout-published",
      args: {
        repo: { owner: "acme", repo: "blueprints" },
        package: "apps/web",
        revision: 2,
        tag: "apps/web/v2",
        commit: "abc",
      },
      repository,
    };
    expect(readJobData(published).args).toEqual(published.args);
  });

  it("is refused naming the field when an argument has another shape", () => {
    expect(() =>
      readJobData({ kind: "check", key: "7", task: "check", args: { pull: "7" }, repository }),
    ).toThrow(/a queued check job's arguments are not what this version reads: pull: .*number/);
    expect(() =>
      readJobData({ kind: "render", key: "x", task: "render", args: { branch: "drafts/a/b" } }),
    ).toThrow(/a queued job is not one this version reads: repository: /);
  });

  it("is refused naming the known tasks when its task is not one of this version's", () => {
    expect(() => readJobData({ kind: "x", key: "y", task: "rebuild-world", args: {}, repository })).toThrow(
      /unknown job task "rebuild-world" .*known: render, /,
    );
  });
});
