import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { modeOf, readPayload } from "../../src/action/events.js";

describe("what an event does on Actions", () => {
  it.each(["push", "pull_request", "issue_comment", "pull_request_review"])(
    "%s is handled as its webhook",
    (name) => {
      expect(modeOf(name)).toEqual({ kind: "webhook", name });
    },
  );

  it.each(["schedule", "workflow_dispatch"])("%s reconciles", (name) => {
    expect(modeOf(name)).toEqual({ kind: "reconcile" });
  });

  it("names what it handles when the event is another", () => {
    const mode = modeOf("pull_request_target");
    expect(mode.kind).toBe("ignored");
    expect(mode.kind === "ignored" && mode.reason).toMatch(
      /nothing on "pull_request_target".*push, pull_request, issue_comment, pull_request_review.*schedule and workflow_dispatch/,
    );
  });
});

describe("reading the event payload", () => {
  const dir = mkdtempSync(join(tmpdir(), "porchlight-action-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, text: string) => {
    writeFileSync(join(dir, name), text);
    return join(dir, name);
  };

  it("reads a JSON object", async () => {
    expect(await readPayload(file("ok.json", '{"action":"opened"}'))).toEqual({ action: "opened" });
  });

  it("names a missing file and where it was looked for", async () => {
    await expect(readPayload(join(dir, "nope.json"))).rejects.toThrow(
      `cannot read the event payload at GITHUB_EVENT_PATH=${join(dir, "nope.json")} (ENOENT)`,
    );
  });

  it("names a file that is not JSON, or not an object", async () => {
    await expect(readPayload(file("bad.json", "{"))).rejects.toThrow(/bad.json is not JSON/);
    await expect(readPayload(file("list.json", "[]"))).rejects.toThrow(/list.json is not a JSON object/);
  });
});
