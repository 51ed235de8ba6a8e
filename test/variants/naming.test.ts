import { describe, expect, it } from "vitest";
import { packageVariantName } from "../../src/variants/naming.js";

describe("packageVariantName", () => {
  it("joins set, repository and package as Porch does", () => {
    expect(packageVariantName("fleet", "cluster-01", "basens")).toBe("fleet-cluster-01-basens");
    expect(packageVariantName("fleet", "acme/cluster-01", "basens")).toBe("fleet-cluster-01-basens");
  });

  it.each([
    ["fleet", "cluster-01", "apps/basens"],
    ["fleet", "Cluster_01", "basens"],
    ["a-very-long-package-variant-set-name", "a-very-long-repository-name-for-a-cluster", "basens"],
  ])("keeps %s/%s/%s a DNS label, unique and stable", (set, repo, pkg) => {
    const name = packageVariantName(set, repo, pkg);
    expect(name).toMatch(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
    expect(name.length).toBeLessThanOrEqual(63);
    expect(name).toMatch(/-[0-9a-f]{8}$/);
    expect(packageVariantName(set, repo, pkg)).toBe(name);
  });

  it("gives different names to identifiers that clean up the same", () => {
    expect(packageVariantName("s", "r", "a/b")).not.toBe(packageVariantName("s", "r", "a-b"));
  });
});
