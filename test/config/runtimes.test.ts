import { describe, expect, it } from "vitest";
import { effectiveRuntimes, type Runtime } from "../../src/config/index.js";

describe("effectiveRuntimes: a repository can narrow the operator's runtimes, never widen them", () => {
  it.each<{
    name: string;
    operator: Runtime[];
    repo: Runtime[] | undefined;
    allowed: Runtime[];
    refused: Runtime[];
  }>([
    {
      name: "no request gets what the operator allows",
      operator: ["builtin"],
      repo: undefined,
      allowed: ["builtin"],
      refused: [],
    },
    {
      name: "no request with exec allowed gets exec",
      operator: ["builtin", "exec"],
      repo: undefined,
      allowed: ["builtin", "exec"],
      refused: [],
    },
    {
      name: "asking for exec the operator has not enabled is refused",
      operator: ["builtin"],
      repo: ["builtin", "exec"],
      allowed: ["builtin"],
      refused: ["exec"],
    },
    {
      name: "narrowing to builtin drops container",
      operator: ["container", "builtin"],
      repo: ["builtin"],
      allowed: ["builtin"],
      refused: [],
    },
    {
      name: "an empty request allows nothing",
      operator: ["builtin", "exec", "container"],
      repo: [],
      allowed: [],
      refused: [],
    },
    {
      name: "the order is always builtin, exec, container",
      operator: ["container", "exec", "builtin"],
      repo: ["container", "builtin"],
      allowed: ["builtin", "container"],
      refused: [],
    },
  ])("$name", ({ operator, repo, allowed, refused }) => {
    expect(effectiveRuntimes(operator, repo)).toEqual({ allowed, refused });
  });
});
