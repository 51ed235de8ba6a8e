import { describe, expect, it } from "vitest";
import { type ApplyRequest, serverSideApply } from "../../src/porchapi/apply.js";
import type { KubeObject } from "../../src/porchapi/resources.js";

const req = (manager: string): ApplyRequest => ({
  manager,
  force: false,
  apiVersion: "config.porch.kpt.dev/v1alpha1",
  resource: "packagevariants",
  group: "config.porch.kpt.dev",
  name: "edge",
  ownership: "managedFields",
  now: new Date(0),
});
const applied = (finalizers?: string[]) => ({
  apiVersion: "config.porch.kpt.dev/v1alpha1",
  kind: "PackageVariant",
  metadata: { name: "edge", ...(finalizers ? { finalizers } : {}) },
});

/** metadata.finalizers is a set (ObjectMeta's listType=set): each manager owns its own values. */
describe("server-side apply of finalizers", () => {
  const flux = serverSideApply(undefined, applied(["example.com/keep"]), req("flux"));
  const both = serverSideApply(flux, applied(["example.com/other"]), req("other"));

  it("owns each finalizer on its own, as FieldsV1 names a set's values", () => {
    expect(flux.metadata?.managedFields).toEqual([
      expect.objectContaining({
        manager: "flux",
        fieldsV1: { "f:metadata": { "f:finalizers": { 'v:"example.com/keep"': {} } } },
      }),
    ]);
  });

  it("adds another manager's finalizer beside the first, without a conflict", () => {
    expect(both.metadata?.finalizers).toEqual(["example.com/keep", "example.com/other"]);
  });

  it("removes only the finalizer a manager applies away", () => {
    const released = serverSideApply(both, applied(), req("flux"));
    expect(released.metadata?.finalizers).toEqual(["example.com/other"]);
    const none = serverSideApply(released, applied(), req("other"));
    expect(none.metadata?.finalizers).toBeUndefined();
  });

  it("still refuses a change of a value another manager owns elsewhere", () => {
    const labelled = serverSideApply(
      both,
      { ...applied(), metadata: { name: "edge", labels: { a: "1" } } },
      req("flux"),
    );
    expect(() =>
      serverSideApply(
        labelled as KubeObject,
        { ...applied(), metadata: { name: "edge", labels: { a: "2" } } },
        req("other"),
      ),
    ).toThrow(/conflict with "flux" using config.porch.kpt.dev\/v1alpha1: .metadata.labels.a/);
  });
});
