import { describe, expect, it } from "vitest";
import {
  authorize,
  forkRuntimeProblem,
  hasPermission,
  PERMISSION_LEVELS,
  type Permission,
  toPermission,
} from "../../src/commands/index.js";

describe("hasPermission, in GitHub's order none < read < triage < write < maintain < admin", () => {
  it.each(
    PERMISSION_LEVELS.flatMap((actual, i) =>
      PERMISSION_LEVELS.map((required, j) => ({ actual, required, expected: i >= j })),
    ),
  )("$actual for $required: $expected", ({ actual, required, expected }) => {
    expect(hasPermission(actual, required)).toBe(expected);
  });

  it.each([
    ["admin", "admin"],
    ["MAINTAIN", "maintain"],
    ["triage", "triage"],
    ["custom-role", "none"],
    [null, "none"],
    [undefined, "none"],
  ] as const)("reads GitHub's %s as %s", (value, expected) => {
    expect(toPermission(value)).toBe(expected);
  });
});

describe("authorize", () => {
  it("lets someone with enough permission through", () => {
    expect(authorize({ login: "ana", permission: "maintain" }, "`/approve`", "write")).toEqual({ ok: true });
  });

  it.each<[Permission, string]>([
    ["read", "@bo, `/approve` needs write permission on this repository; you have read permission."],
    ["none", "@bo, `/approve` needs write permission on this repository; you have no permission."],
  ])("refuses %s with a message that says why", (permission, reason) => {
    expect(authorize({ login: "bo", permission }, "`/approve`", "write")).toEqual({ ok: false, reason });
  });
});

describe("forkRuntimeProblem: never exec or container code from a fork's branch", () => {
  it.each([
    { isFork: false, runtimesNeeded: ["exec", "container"] as const, refused: false },
    { isFork: true, runtimesNeeded: ["builtin"] as const, refused: false },
    { isFork: true, runtimesNeeded: [] as const, refused: false },
    { isFork: true, runtimesNeeded: ["builtin", "exec"] as const, refused: true },
    { isFork: true, runtimesNeeded: ["container"] as const, refused: true },
  ])("fork=$isFork needing $runtimesNeeded: refused=$refused", ({ isFork, runtimesNeeded, refused }) => {
    const problem = forkRuntimeProblem({ isFork, runtimesNeeded: [...runtimesNeeded] });
    expect(problem !== undefined).toBe(refused);
    if (problem) expect(problem).toMatch(/comes from a fork .* never runs for forks/);
  });
});
