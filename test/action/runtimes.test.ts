import { describe, expect, it } from "vitest";
import { actionIdentity } from "../../src/action/identity.js";
import { operatorRuntimesFromEnv } from "../../src/config/runtimes.js";

describe("the workflow author's allowances", () => {
  it.each([
    [{}, ["builtin"]],
    [{ PORCHLIGHT_ALLOW_EXEC: "1" }, ["builtin", "exec"]],
    [{ PORCHLIGHT_ALLOW_EXEC: "true", PORCHLIGHT_ALLOW_CONTAINER: "yes" }, ["builtin", "exec", "container"]],
    [{ PORCHLIGHT_ALLOW_EXEC: "0", PORCHLIGHT_ALLOW_CONTAINER: "" }, ["builtin"]],
    [{ PORCHLIGHT_ALLOW_EXEC: "exec" }, ["builtin"]],
  ])("%j allows %j", (env, runtimes) => {
    expect(operatorRuntimesFromEnv(env)).toEqual(runtimes);
  });

  it("acts as github-actions[bot] unless told otherwise", () => {
    expect(actionIdentity({}).login).toBe("github-actions[bot]");
    expect(actionIdentity({}).author.email).toBe("41898282+github-actions[bot]@users.noreply.github.com");
    expect(actionIdentity({ PORCHLIGHT_BOT_LOGIN: "kpt-bot[bot]" })).toEqual({
      login: "kpt-bot[bot]",
      author: { name: "kpt-bot[bot]", email: "kpt-bot[bot]@users.noreply.github.com" },
    });
  });
});
