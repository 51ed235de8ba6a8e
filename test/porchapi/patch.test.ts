import { describe, expect, it } from "vitest";
import { applyPatch } from "../../src/porchapi/patch.js";
import { ApiError } from "../../src/porchapi/status.js";

const OBJ = { metadata: { name: "r", labels: { a: "1" } }, spec: { tasks: [{ type: "init" }] } };

const refusal = (patch: unknown): ApiError => {
  try {
    applyPatch(OBJ, "json", patch);
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  throw new Error("the patch was applied");
};

describe("kubectl's JSON patch (RFC 6902)", () => {
  it("applies add, remove, replace, move, copy and test in order, leaving the object given alone", () => {
    const out = applyPatch(OBJ, "json", [
      { op: "test", path: "/metadata/labels", value: { a: "1" } },
      { op: "add", path: "/metadata/labels/b~1c", value: "2" },
      { op: "copy", from: "/metadata/labels/a", path: "/metadata/labels/d" },
      { op: "move", from: "/metadata/labels/a", path: "/metadata/labels/e" },
      { op: "replace", path: "/spec/tasks/0/type", value: "clone" },
      { op: "add", path: "/spec/tasks/-", value: { type: "edit" } },
      { op: "remove", path: "/metadata/labels/d" },
    ]);
    expect(out).toEqual({
      metadata: { name: "r", labels: { "b/c": "2", e: "1" } },
      spec: { tasks: [{ type: "clone" }, { type: "edit" }] },
    });
    expect(OBJ.metadata.labels).toEqual({ a: "1" });
  });

  it("refuses what cannot be applied, naming the operation and why", () => {
    expect(refusal([{ op: "remove", path: "/metadata/annotations/x" }]).message).toBe(
      "the JSON patch's operation 1 (remove /metadata/annotations/x): nothing is at that path (or its parent)",
    );
    expect(refusal([{ op: "replace", path: "/spec/tasks/5", value: {} }]).message).toMatch(
      /^the JSON patch's operation 1 \(replace \/spec\/tasks\/5\): /,
    );
    expect(refusal([{ op: "frob", path: "/a" }]).message).toContain('its op is none of "add"');
    expect(refusal({ op: "add" }).message).toBe("a JSON patch is a list of operations ([{op, path, value}])");
  });

  it("a test that does not hold is Invalid, whatever the order of the keys compared", () => {
    const failed = refusal([{ op: "test", path: "/metadata/labels/a", value: "2" }]);
    expect(failed.reason).toBe("Invalid");
    expect(failed.message).toBe(
      "the JSON patch's operation 1 (test /metadata/labels/a) failed: the value there is not the one given",
    );
    expect(() =>
      applyPatch({ m: { a: 1, b: 2 } }, "json", [{ op: "test", path: "/m", value: { b: 2, a: 1 } }]),
    ).not.toThrow();
  });
});
