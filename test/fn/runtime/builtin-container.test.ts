import { describe, expect, it } from "vitest";
import { FunctionRegistry, UnknownFunctionError } from "../../../src/fn/registry.js";
import { BuiltinRunner } from "../../../src/fn/runtime/builtin.js";
import { ContainerRunner } from "../../../src/fn/runtime/container.js";
import { DEFAULT_RUN_OPTIONS } from "../../../src/fn/runtime/types.js";
import { type BuiltinFunction, FunctionError } from "../../../src/fn/types.js";
import { egressPolicy, imageEgressCheck } from "../../../src/sources/egress.js";

const list = () => ({ items: [], results: [] });

describe("BuiltinRunner", () => {
  const fns: BuiltinFunction[] = [
    {
      name: "ok",
      releases: "unversioned",
      run: (rl) => ({ ...rl, results: [{ message: "fine", severity: "info" }] }),
    },
    {
      name: "errors",
      releases: "unversioned",
      run: (rl) => ({ ...rl, results: [{ message: "bad", severity: "error" }] }),
    },
    { name: "hangs", releases: "unversioned", run: () => new Promise(() => {}) },
  ];
  const runner = new BuiltinRunner(new FunctionRegistry(fns));

  it("runs the builtin an image names, whatever its registry and tag", async () => {
    const out = await runner.run({ image: "ghcr.io/x/ok:v9" }, list(), DEFAULT_RUN_OPTIONS);
    expect(out.results).toEqual([{ message: "fine", severity: "info" }]);
  });

  it("fails when the builtin reports an error result, as its container would", async () => {
    const run = runner.run({ image: "errors" }, list(), DEFAULT_RUN_OPTIONS);
    await expect(run).rejects.toBeInstanceOf(FunctionError);
    await expect(run).rejects.toMatchObject({ results: [{ message: "bad", severity: "error" }] });
  });

  it("fails a builtin that runs past the time limit", async () => {
    await expect(
      runner.run({ image: "hangs" }, list(), { ...DEFAULT_RUN_OPTIONS, timeoutMs: 50 }),
    ).rejects.toThrow(/did not finish/);
  });

  it("refuses an image that is not a builtin", async () => {
    await expect(
      runner.run({ image: "gcr.io/kpt-fn/nope:v1" }, list(), DEFAULT_RUN_OPTIONS),
    ).rejects.toBeInstanceOf(UnknownFunctionError);
  });
});

describe("ContainerRunner", () => {
  it("says clearly that no container engine is running", async () => {
    const runner = new ContainerRunner(() => undefined);
    await expect(runner.run({ image: "example.com/fn:v1" }, list(), DEFAULT_RUN_OPTIONS)).rejects.toThrow(
      /no container engine is available \(`docker info` and `podman info` both failed/,
    );
  });

  it("does not have the engine pull an image the operator's egress policy refuses", async () => {
    const runner = new ContainerRunner(() => "docker", false, imageEgressCheck(egressPolicy([])));
    const run = (image: string) => runner.run({ image }, list(), { ...DEFAULT_RUN_OPTIONS, timeoutMs: 1 });
    for (const image of ["127.0.0.1:5000/fn:v1", "localhost/fn:v1", "169.254.169.254/x/fn:v1"])
      await expect(run(image), image).rejects.toThrow(
        new RegExp(`cannot pull "${image.replace(/[.]/g, "\\.")}": .* is a (loopback|link-local)`),
      );
  });
});
