import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { kptGate, kptRequired, whyNoKpt } from "./kpt.js";

describe("the kpt gate of the test run", () => {
  const empty = mkdtempSync(join(tmpdir(), "no-kpt-"));
  afterAll(() => rmSync(empty, { recursive: true, force: true }));

  it("says why kpt cannot run where it is not on PATH", () => {
    expect(whyNoKpt({ PATH: empty })).toMatch(
      /^kpt cannot run here \(spawnSync kpt ENOENT\): install kpt v1/,
    );
  });

  it("fails the run when CI requires kpt and it is missing, naming the variable", () => {
    const why = whyNoKpt({ PATH: empty });
    expect(kptGate({ PORCHLIGHT_REQUIRE_KPT: "1" }, why)?.message).toBe(
      `PORCHLIGHT_REQUIRE_KPT=1: the comparisons with kpt must run, but ${why}`,
    );
  });

  it("lets the comparisons skip on a laptop without kpt, and never stops a run that has kpt", () => {
    expect(kptGate({}, "kpt cannot run here")).toBeUndefined();
    expect(kptGate({ PORCHLIGHT_REQUIRE_KPT: "0" }, "kpt cannot run here")).toBeUndefined();
    expect(kptGate({ PORCHLIGHT_REQUIRE_KPT: "1" }, undefined)).toBeUndefined();
    expect(kptRequired({ PORCHLIGHT_REQUIRE_KPT: "" })).toBe(false);
  });
});
