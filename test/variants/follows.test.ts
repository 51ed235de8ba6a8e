import { describe, expect, it } from "vitest";
import { variantsMayFollow } from "../../src/variants/index.js";

const variant = (upstream: string) => `apiVersion: config.porch.kpt.dev/v1alpha1
kind: PackageVariant
metadata:
  name: dev
spec:
  upstream:
${upstream}
  downstream:
    repo: deploy-dev
    package: hello
`;

const set = (upstream: string) => `apiVersion: config.porch.kpt.dev/v1alpha2
kind: PackageVariantSet
metadata:
  name: fleet
spec:
  upstream:
${upstream}
  targets:
  - repositorySelector:
      matchLabels:
        env: dev
`;

const file = (text: string) => [{ path: ".porchlight/variants/v.yaml", text }];
const published = { repo: "acme/blueprints", package: "hello" };

describe("whether a management repository's variants may follow a published package", () => {
  it.each([
    [
      "a variant of the package, repository by short name",
      variant("    repo: blueprints\n    package: hello"),
      true,
    ],
    [
      "a variant of the package, repository by full name",
      variant("    repo: Acme/Blueprints\n    package: hello"),
      true,
    ],
    ["a variant of the package, repository left to the default", variant("    package: hello"), true],
    [
      "a variant following a channel of the package",
      variant("    package: hello\n    channel: stable"),
      true,
    ],
    ["a variant of a package holding it", variant("    package: hello/sub"), true],
    ["a variant of another package", variant("    repo: blueprints\n    package: world"), false],
    [
      "a variant of a package with the same prefix",
      variant("    repo: blueprints\n    package: hello-world"),
      false,
    ],
    [
      "a variant of the same package elsewhere",
      variant("    repo: other/blueprints\n    package: hello"),
      false,
    ],
    ["a variant of an OCI image", variant("    oci: oci://ghcr.io/acme/hello:v1"), false],
    ["a set of the package", set("    repo: blueprints\n    package: hello\n    revision: 1"), true],
    ["a set of another package", set("    repo: blueprints\n    package: world\n    revision: 1"), false],
    ["a document that cannot be read", "kind: [", true],
  ])("%s: %s", (_what, text, expected) => {
    expect(variantsMayFollow(file(text), published, "acme/blueprints")).toBe(expected);
  });

  it("no variant files, nothing follows", () => {
    expect(variantsMayFollow([], published, "acme/blueprints")).toBe(false);
  });
});
