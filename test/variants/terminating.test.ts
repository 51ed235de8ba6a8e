import { describe, expect, it } from "vitest";
import { PACKAGE_VARIANT_FINALIZER, releaseFinalizer, withoutTerminating } from "../../src/variants/index.js";

const doc = (name: string, meta = "") =>
  `apiVersion: config.porch.kpt.dev/v1alpha1\nkind: PackageVariant\nmetadata:\n  name: ${name}\n${meta}spec:\n  upstream: {repo: blueprints, package: hello}\n  downstream: {repo: cluster-01, package: ${name}}\n`;
const DELETING = `  deletionTimestamp: "2025-01-01T00:00:00Z"\n  finalizers:\n  - ${PACKAGE_VARIANT_FINALIZER}\n`;

describe("variants being deleted (metadata.deletionTimestamp)", () => {
  it("are left out of the files fan-out reads, the other documents kept as written", () => {
    const other = `# kept\n${doc("a")}`;
    const { files, terminating } = withoutTerminating([
      { path: ".porchlight/variants/x.yaml", text: `${other}---\n${doc("b", DELETING)}` },
      { path: ".porchlight/variants/y.yaml", text: doc("c", DELETING) },
      { path: ".porchlight/variants/z.yaml", text: doc("d") },
    ]);
    expect(files).toEqual([
      { path: ".porchlight/variants/x.yaml", text: other },
      { path: ".porchlight/variants/z.yaml", text: doc("d") },
    ]);
    expect(terminating.map((t) => [t.file, t.name, t.finalizers])).toEqual([
      [".porchlight/variants/x.yaml", "b", [PACKAGE_VARIANT_FINALIZER]],
      [".porchlight/variants/y.yaml", "c", [PACKAGE_VARIANT_FINALIZER]],
    ]);
  });

  it("lose porchlight's finalizer; the last one gone, the document leaves its file", () => {
    const two = doc(
      "b",
      `  deletionTimestamp: "2025-01-01T00:00:00Z"\n  finalizers:\n  - example.com/hold\n  - ${PACKAGE_VARIANT_FINALIZER}\n`,
    );
    const once = releaseFinalizer(`${doc("a")}---\n${two}`, "PackageVariant", "b", PACKAGE_VARIANT_FINALIZER);
    expect(once.changed).toBe(true);
    expect(once.text).toContain("finalizers:\n    - example.com/hold\n");
    expect(once.text).not.toContain(PACKAGE_VARIANT_FINALIZER);
    const last = releaseFinalizer(
      `${doc("a")}---\n${doc("b", DELETING)}`,
      "PackageVariant",
      "b",
      PACKAGE_VARIANT_FINALIZER,
    );
    expect(last).toEqual({ changed: true, text: doc("a") });
    expect(releaseFinalizer(doc("c", DELETING), "PackageVariant", "c", PACKAGE_VARIANT_FINALIZER)).toEqual({
      changed: true,
      text: undefined,
    });
    // not being deleted: the finalizer goes, the object stays; one without it is left alone
    const kept = releaseFinalizer(
      doc("e", `  finalizers:\n  - ${PACKAGE_VARIANT_FINALIZER}\n`),
      "PackageVariant",
      "e",
      PACKAGE_VARIANT_FINALIZER,
    );
    expect(kept.changed).toBe(true);
    expect(kept.text).not.toContain("finalizers");
    expect(kept.text).toContain("name: e\n");
    expect(releaseFinalizer(doc("f"), "PackageVariant", "f", PACKAGE_VARIANT_FINALIZER).changed).toBe(false);
  });
});
