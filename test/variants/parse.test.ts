import { describe, expect, it } from "vitest";
import { parseVariantFile } from "../../src/variants/parse.js";
import { formatProblem } from "../../src/variants/problem.js";
import { codeBlock } from "../util/codeblock.js";
import { variantDoc, variantSetDoc, variantSpec } from "../util/krm.js";

const FILE = ".porchlight/variants/basens.yaml";

describe("parseVariantFile", () => {
  it("loads a PackageVariant with Porch's defaults", () => {
    const text = codeBlock`
      apiVersion: config.porch.kpt.dev/v1alpha1
      kind: PackageVariant
      metadata:
        name: cluster-01-basens
      spec:
        upstream:
          repo: blueprints
          package: basens
          revision: v3
        downstream:
          repo: cluster-01
          package: basens
    `;
    const { variants, problems } = parseVariantFile(FILE, text);
    expect(problems).toEqual([]);
    expect(variants).toHaveLength(1);
    expect(variants[0]?.variant.spec).toMatchObject({
      adoptionPolicy: "adoptNone",
      deletionPolicy: "delete",
      paused: false,
      upstream: { repo: "blueprints", package: "basens", revision: "v3" },
    });
    expect(variants[0]?.source).toEqual({ file: FILE, line: 1, column: 1 });
  });

  it("reads several documents, a set among them, and a bare revision number", () => {
    const text = codeBlock`
      apiVersion: config.porch.kpt.dev/v1alpha1
      kind: PackageVariant
      metadata: {name: a}
      spec:
        upstream: {repo: up, package: p, revision: 2}
        downstream: {repo: down, package: p}
      ---
      apiVersion: config.porch.kpt.dev/v1alpha2
      kind: PackageVariantSet
      metadata: {name: fleet}
      spec:
        upstream: {repo: up, package: p, channel: stable}
        targets:
        - repositories: [{name: cluster-01}]
    `;
    const { variants, sets, problems } = parseVariantFile(FILE, text);
    expect(problems).toEqual([]);
    expect(variants[0]?.variant.spec.upstream).toMatchObject({ revision: "v2" });
    expect(sets[0]?.set.metadata.name).toBe("fleet");
    expect(sets[0]?.source.line).toBe(8);
  });

  it.each([
    ["an OCI", "oci", `oci://registry.example/blueprints/web//apps/web@sha256:${"a".repeat(64)}`],
    ["a tarball", "tarball", `https://example.com/web-1.2.tar.gz//web#sha256=${"a".repeat(64)}`],
  ])("reads %s upstream as written, without a repository filled in", (_kind, field, ref) => {
    const text = variantSpec`
      upstream: {${field}: "${ref}"}
      downstream: {repo: down, package: web}
    `;
    const { variants, problems } = parseVariantFile(FILE, text, { managementRepo: "acme/blueprints" });
    expect(problems).toEqual([]);
    expect(variants[0]?.variant.spec.upstream).toEqual({ [field]: ref });
  });

  it.each([
    ["a workspace, as Porch names a revision", "workspaceName: ws-1", { workspaceName: "ws-1" }],
    [
      "a workspace and the revision it was published as",
      "workspaceName: ws-1, revision: 3",
      { workspaceName: "ws-1", revision: "v3" },
    ],
    ["neither (the latest published revision)", "", {}],
    ["Porch's unset revision, 0, as none", "revision: 0", {}],
  ])("reads an upstream naming %s", (_name, fields, expected) => {
    const text = variantSpec`
      upstream: {repo: up, package: p, ${fields}}
      downstream: {repo: down, package: p}
    `;
    const { variants, problems } = parseVariantFile(FILE, text);
    expect(problems).toEqual([]);
    expect(variants[0]?.variant.spec.upstream).toEqual({ repo: "up", package: "p", ...expected });
  });

  it("fills a missing upstream repo with the management repository", () => {
    const text = variantSpec`
      upstream: {package: p, revision: v1}
      downstream: {repo: down, package: p}
    `;
    const { variants } = parseVariantFile(FILE, text, { managementRepo: "acme/blueprints" });
    expect(variants[0]?.variant.spec.upstream).toMatchObject({ repo: "acme/blueprints" });
  });

  const bad: Array<{
    name: string;
    text: string;
    expected: Array<{ line: number; column: number; field: string; message: RegExp }>;
  }> = [
    {
      name: "a missing required field, at its parent",
      text: variantSpec`
        upstream:
          package: p
          revision: v1
        downstream: {repo: down, package: p}
      `,
      expected: [
        {
          line: 5,
          column: 3,
          field: "spec.upstream.repo",
          message: /missing required field spec.upstream.repo/,
        },
      ],
    },
    {
      name: "a misspelt field, at its key",
      text: variantSpec`
        upstream: {repo: up, package: p, revision: v1}
        downstream: {repo: down, package: p}
        adoptonPolicy: adoptExisting
      `,
      expected: [
        { line: 7, column: 3, field: "spec.adoptonPolicy", message: /unknown field "adoptonPolicy"/ },
      ],
    },
    {
      name: "a policy Porch does not know",
      text: variantSpec`
        upstream: {repo: up, package: p, revision: v1}
        downstream: {repo: down, package: p}
        deletionPolicy: keep
      `,
      expected: [
        { line: 7, column: 19, field: "spec.deletionPolicy", message: /can only be "orphan" or "delete"/ },
      ],
    },
    {
      name: "a reserved package-context key",
      text: variantSpec`
        upstream: {repo: up, package: p, revision: v1}
        downstream: {repo: down, package: p}
        packageContext:
          data:
            name: nope
      `,
      expected: [
        {
          line: 9,
          column: 7,
          field: "spec.packageContext.data",
          message: /must not contain the key "name"/,
        },
      ],
    },
    {
      name: "both a revision and a channel",
      text: variantSpec`
        upstream: {repo: up, package: p, revision: v1, channel: stable}
        downstream: {repo: down, package: p}
      `,
      expected: [
        {
          line: 5,
          column: 59,
          field: "spec.upstream.channel",
          message: /channel .* or revision .*, not both/,
        },
      ],
    },
    {
      name: "both a workspace and a channel",
      text: variantSpec`
        upstream: {repo: up, package: p, workspaceName: ws, channel: stable}
        downstream: {repo: down, package: p}
      `,
      expected: [
        { line: 5, column: 64, field: "spec.upstream.channel", message: /or workspaceName .*, not both/ },
      ],
    },
    {
      name: "a workspace name that no workspace can have",
      text: variantSpec`
        upstream: {repo: up, package: p, workspaceName: My_WS}
        downstream: {repo: down, package: p}
      `,
      expected: [
        { line: 5, column: 51, field: "spec.upstream.workspaceName", message: /must use only lowercase/ },
      ],
    },
    {
      name: "an OCI upstream that is a tarball URL",
      text: variantSpec`
        upstream:
          oci: https://example.com/web.tar.gz
        downstream: {repo: down, package: p}
      `,
      expected: [
        {
          line: 6,
          column: 10,
          field: "spec.upstream.oci",
          message: /is a tarball URL, not an OCI reference: write it as upstream: \{tarball: /,
        },
      ],
    },
    {
      name: "a tarball upstream that is no archive URL",
      text: variantSpec`
        upstream:
          tarball: https://example.com/web.zip
        downstream: {repo: down, package: p}
      `,
      expected: [
        {
          line: 6,
          column: 14,
          field: "spec.upstream.tarball",
          message: /is not a tarball URL: write https:\/\/HOST\/PATH.tar.gz/,
        },
      ],
    },
    {
      name: "a tarball upstream over plain http to another host",
      text: variantSpec`
        upstream: {tarball: "http://example.com/web.tar.gz"}
        downstream: {repo: down, package: p}
      `,
      expected: [
        {
          line: 5,
          column: 23,
          field: "spec.upstream.tarball",
          message: /plain http:\/\/ is spoken to loopback hosts only; use https:\/\//,
        },
      ],
    },
    {
      name: "a tarball upstream with a bad pin",
      text: variantSpec`
        upstream: {tarball: "https://example.com/web.tar.gz#sha256=abc"}
        downstream: {repo: down, package: p}
      `,
      expected: [
        {
          line: 5,
          column: 23,
          field: "spec.upstream.tarball",
          message: /#sha256=<64 lowercase hex digits>/,
        },
      ],
    },
    {
      name: "an image under tarball",
      text: variantSpec`
        upstream: {tarball: "oci://registry.example/web:v1"}
        downstream: {repo: down, package: p}
      `,
      expected: [
        {
          line: 5,
          column: 23,
          field: "spec.upstream.tarball",
          message: /is an OCI reference, not a tarball URL: write it as upstream: \{oci: /,
        },
      ],
    },
    {
      name: "an OCI upstream with an uppercase repository",
      text: variantSpec`
        upstream: {oci: "oci://registry.example/Web:v1"}
        downstream: {repo: down, package: p}
      `,
      expected: [
        {
          line: 5,
          column: 19,
          field: "spec.upstream.oci",
          message: /the repository "Web" must be lowercase/,
        },
      ],
    },
    {
      name: "an OCI upstream with Porch's git fields besides",
      text: variantSpec`
        upstream: {oci: "oci://registry.example/web:v1", revision: v1}
        downstream: {repo: down, package: p}
      `,
      expected: [
        { line: 5, column: 52, field: "spec.upstream.revision", message: /unknown field "revision"/ },
      ],
    },
    {
      name: "a git upstream with a misspelt field, reported as Porch's form",
      text: variantSpec`
        upstream: {repo: up, pakage: p, revision: v1}
        downstream: {repo: down, package: p}
      `,
      expected: [
        { line: 5, column: 3, field: "spec.upstream.package", message: /missing required field/ },
        { line: 5, column: 24, field: "spec.upstream.pakage", message: /unknown field "pakage"/ },
      ],
    },
    {
      name: "a name that is not a DNS label",
      text: variantDoc(
        "My.Variant",
        "{repo: up, package: p, revision: v1}",
        codeBlock`
          downstream: {repo: down, package: p}
      `,
      ),
      expected: [{ line: 3, column: 18, field: "metadata.name", message: /DNS label/ }],
    },
    {
      name: "an unknown kind",
      text: codeBlock`
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: a}
      `,
      expected: [{ line: 2, column: 7, field: "kind", message: /unknown kind "ConfigMap"/ }],
    },
    {
      name: "a function name with a dot",
      text: variantSpec`
        upstream: {repo: up, package: p, revision: v1}
        downstream: {repo: down, package: p}
        pipeline:
          mutators:
          - image: ghcr.io/kptdev/krm-functions-catalog/set-namespace:v0.4
            name: set.ns
      `,
      expected: [
        { line: 10, column: 13, field: "spec.pipeline.mutators[0].name", message: /must not contain '.'/ },
      ],
    },
    {
      name: "a set target with two kinds of targeting",
      text: variantSetDoc(
        "fleet",
        "{repo: up, package: p, revision: v1}",
        codeBlock`
          targets:
          - repositories: [{name: c1}]
            repositorySelector: {topics: [prod]}
      `,
      ),
      expected: [
        { line: 7, column: 5, field: "spec.targets[0]", message: /must specify one of `repositories`/ },
      ],
    },
    {
      name: "broken YAML, and the next document still read",
      text: codeBlock`
        apiVersion: config.porch.kpt.dev/v1alpha1
        kind: PackageVariant
        metadata: {name: a
      `,
      expected: [{ line: 4, column: 1, field: "", message: /not valid YAML/ }],
    },
  ];

  it.each(bad)("reports $name", ({ text, expected }) => {
    const { variants, sets, problems } = parseVariantFile(FILE, text);
    expect(variants).toEqual([]);
    expect(sets).toEqual([]);
    expect(
      problems.map((p) => ({ line: p.line, column: p.column, field: p.field, message: p.message })),
    ).toEqual(expected.map((e) => ({ ...e, message: expect.stringMatching(e.message) })));
    for (const p of problems) expect(formatProblem(p)).toContain(`${FILE}:${p.line}:${p.column}`);
  });

  it("keeps going after a bad document", () => {
    const text = codeBlock`
      kind: Nope
      ---
      apiVersion: config.porch.kpt.dev/v1alpha1
      kind: PackageVariant
      metadata: {name: b}
      spec:
        upstream: {repo: up, package: p, revision: v1}
        downstream: {repo: down, package: p}
    `;
    const { variants, problems } = parseVariantFile(FILE, text);
    expect(problems).toHaveLength(1);
    expect(variants.map((v) => v.variant.metadata.name)).toEqual(["b"]);
  });
});
