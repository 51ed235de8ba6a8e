import { describe, expect, it } from "vitest";
import {
  FunctionRegistry,
  imageShortName,
  UnknownFunctionError,
  UnsupportedReleaseError,
} from "../../src/fn/registry.js";
import { catalogReleases, resolveRelease } from "../../src/fn/releases.js";
import type { BuiltinFunction } from "../../src/fn/types.js";

const fake = (name: string, releases: BuiltinFunction["releases"] = "unversioned"): BuiltinFunction => ({
  name,
  releases,
  run: (rl) => rl,
});

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
    expect(registry.resolve("gcr.io/kpt-fn/set-namespace:v0.4.1").fn.name).toBe("set-namespace");
    expect(registry.resolve("ghcr.io/kptdev/krm-functions-catalog/set-namespace:latest").fn.name).toBe(
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

describe("resolveRelease", () => {
  const releases = ["v0.1.0", "v0.1.3", "v0.2.0", "v0.4.0", "v0.4.1"];
  it.each([
    ["v0.1.3", "v0.1.3"],
    ["v0.4", "v0.4.1"],
    ["v0.1", "v0.1.3"],
    ["v0", "v0.4.1"],
    ["latest", "v0.4.1"],
    ["unstable", "v0.4.1"],
    [undefined, "v0.4.1"],
    ["v0.1.2", undefined],
    ["v0.3", undefined],
    ["v1", undefined],
    ["main", undefined],
  ])("tag %s names release %s", (tag, release) => {
    expect(resolveRelease(tag, releases)).toBe(release);
  });
});

describe("FunctionRegistry with releases", () => {
  const early = fake("set-namespace", catalogReleases("set-namespace", "v0.1.0", "v0.1.4"));
  const late = fake("set-namespace", catalogReleases("set-namespace", "v0.4.0", "v0.4.1"));
  const registry = new FunctionRegistry([early, late]);

  it("runs the builtin that reproduces the release the tag names, and says which release", () => {
    expect(registry.resolve("gcr.io/kpt-fn/set-namespace:v0.1.3")).toEqual({ fn: early, release: "v0.1.3" });
    expect(registry.resolve("gcr.io/kpt-fn/set-namespace:v0.1")).toEqual({ fn: early, release: "v0.1.4" });
    expect(registry.resolve("gcr.io/kpt-fn/set-namespace:v0.4")).toEqual({ fn: late, release: "v0.4.1" });
    expect(registry.resolve("gcr.io/kpt-fn/set-namespace")).toEqual({ fn: late, release: "v0.4.1" });
  });

  it("never runs another release's behaviour: an uncovered release is refused with the ones reproduced", () => {
    expect(registry.find("gcr.io/kpt-fn/set-namespace:v0.3.4")).toBeUndefined();
    expect(() => registry.resolve("gcr.io/kpt-fn/set-namespace:v0.3.4")).toThrow(UnsupportedReleaseError);
    expect(() => registry.resolve("gcr.io/kpt-fn/set-namespace:v0.3.4")).toThrow(
      /set-namespace:v0.3.4" names a release of "set-namespace" that porchlight does not reproduce: pin one of the releases porchlight reproduces \(v0.1.0, v0.1.1, v0.1.2, v0.1.3, v0.1.4, v0.4.0, v0.4.1,.*--allow-container/,
    );
    expect(() => registry.resolve("gcr.io/kpt-fn/set-namespace:v9.9.9")).toThrow(UnsupportedReleaseError);
  });

  it("refuses an image pinned by digest alone, since its release is unknown", () => {
    expect(() => registry.resolve("gcr.io/kpt-fn/set-namespace@sha256:abc")).toThrow(/pinned by digest only/);
    expect(registry.resolve("gcr.io/kpt-fn/set-namespace:v0.4.1@sha256:abc").release).toBe("v0.4.1");
  });

  it("refuses two builtins that claim the same release", () => {
    expect(() => new FunctionRegistry([early, fake("set-namespace", ["v0.1.4", "v0.2.0"])])).toThrow(
      /registered twice for v0.1.4/,
    );
  });

  it("lists the releases reproduced, in catalog order", () => {
    expect(registry.releases("set-namespace")).toEqual([
      ...catalogReleases("set-namespace", "v0.1.0", "v0.1.4"),
      "v0.4.0",
      "v0.4.1",
    ]);
  });
});

describe("releases published on ghcr.io/kptdev alone", () => {
  const registry = new FunctionRegistry([
    fake("set-annotations", catalogReleases("set-annotations", "v0.1.3", "v0.1.5")),
  ]);
  const ghcr = "ghcr.io/kptdev/krm-functions-catalog/set-annotations";

  it("are what the new registry's floating tags name", () => {
    expect(registry.resolve(`${ghcr}:v0.1.5`).release).toBe("v0.1.5");
    expect(registry.resolve(`${ghcr}:v0.1`).release).toBe("v0.1.5");
    expect(registry.resolve(`${ghcr}:latest`).release).toBe("v0.1.5");
    expect(registry.resolve(`${ghcr}:v0.1.4`).release).toBe("v0.1.4");
  });

  it("are not on gcr.io/kpt-fn: its floating tags keep the release kpt pulls there, and the exact one is none", () => {
    expect(registry.resolve("gcr.io/kpt-fn/set-annotations:v0.1").release).toBe("v0.1.4");
    expect(registry.resolve("gcr.io/kpt-fn/set-annotations").release).toBe("v0.1.4");
    expect(registry.resolve("set-annotations:latest").release).toBe("v0.1.4");
    expect(registry.find("gcr.io/kpt-fn/set-annotations:v0.1.5")).toBeUndefined();
  });
});
