import { describe, expect, it } from "vitest";
import { FunctionRegistry, imageShortName, UnknownFunctionError } from "../../src/fn/registry.js";
import type { BuiltinFunction } from "../../src/fn/types.js";

const fake = (name: string): BuiltinFunction => ({ name, run: (rl) => rl });

describe("imageShortName", () => {
  it.each([
    ["gcr.io/kpt-fn/set-namespace:v0.4.1", "set-namespace"],
    ["ghcr.io/kptdev/krm-functions-catalog/set-namespace:latest", "set-namespace"],
    ["set-namespace", "set-namespace"],
    ["localhost:5000/fns/set-labels:v1", "set-labels"],
    ["gcr.io/kpt-fn/apply-setters@sha256:abcdef", "apply-setters"],
    ["gcr.io/kpt-fn/Set-Image:v1@sha256:abcdef", "set-image"],
  ])("%s names %s", (image, name) => {
    expect(imageShortName(image)).toBe(name);
  });
});

describe("FunctionRegistry", () => {
  const registry = new FunctionRegistry([fake("set-namespace"), fake("set-labels")]);

  it("resolves an image to the builtin whatever its registry and tag", () => {
    expect(registry.resolve("gcr.io/kpt-fn/set-namespace:v0.4.1").name).toBe("set-namespace");
    expect(registry.resolve("ghcr.io/kptdev/krm-functions-catalog/set-namespace:latest").name).toBe(
      "set-namespace",
    );
  });

  it("rejects an unknown image with the list of builtins and how to run other functions", () => {
    let err: unknown;
    try {
      registry.resolve("gcr.io/kpt-fn/frobnicate:v1");
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(UnknownFunctionError);
    const message = (err as Error).message;
    expect(message).toContain('"gcr.io/kpt-fn/frobnicate:v1"');
    expect(message).toContain("set-labels, set-namespace");
    expect(message).toContain("--allow-exec");
    expect(message).toContain("--allow-container");
  });

  it("does not suggest a flag that is already given", () => {
    expect(() => registry.resolve("x/y:1", { execAllowed: true, containerAllowed: true })).toThrow(
      /not a builtin function \(builtins: set-labels, set-namespace\)$/,
    );
  });

  it("refuses two builtins with the same name", () => {
    expect(() => new FunctionRegistry([fake("a"), fake("a")])).toThrow(/registered twice/);
  });

  it("adds functions without changing the original", () => {
    const more = registry.with([fake("starlark")]);
    expect(more.names()).toEqual(["set-labels", "set-namespace", "starlark"]);
    expect(registry.names()).toEqual(["set-labels", "set-namespace"]);
  });
});
