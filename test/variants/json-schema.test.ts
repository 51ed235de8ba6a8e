import Ajv2020 from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { variantFileJsonSchema } from "../../src/variants/json-schema.js";
import { parseVariantFile } from "../../src/variants/parse.js";
import { codeBlock } from "../util/codeblock.js";
import { variantSetDoc, variantSpec } from "../util/krm.js";

const ajv = new Ajv2020.default({ strict: false, allErrors: true });
const validate = ajv.compile(variantFileJsonSchema());

describe("variantFileJsonSchema", () => {
  it.each([
    variantSpec`
      upstream: {repo: up, package: p, revision: 3}
      downstream: {repo: down, package: p}
      pipeline:
        mutators: [{image: set-labels:v0.2, configMap: {a: b}}]
    `,
    variantSetDoc(
      "fleet",
      "{repo: up, package: p, channel: stable}",
      codeBlock`
        targets:
        - repositorySelector: {topics: [prod]}
          template:
            labelExprs: [{key: a, valueExpr: repository.name}]
    `,
    ),
    variantSpec`
      upstream: {oci: "oci://registry.example/blueprints/web:stable"}
      downstream: {repo: down, package: web}
    `,
    variantSpec`
      upstream: {tarball: "https://example.com/web.tar.gz"}
      downstream: {repo: down, package: web}
    `,
  ])("accepts what porchlight accepts", (text) => {
    expect(parseVariantFile("f.yaml", text).problems).toEqual([]);
    expect(validate(parse(text)), JSON.stringify(validate.errors)).toBe(true);
  });

  it.each([
    ["a misspelt field", "adoptonPolicy: adoptNone"],
    ["an unknown policy", "deletionPolicy: keep"],
    ["a non-string label", "labels: {a: [1]}"],
  ])("rejects %s, as porchlight does", (_name, line) => {
    const doc = variantSpec`
      upstream: {repo: up, package: p, revision: v1}
      downstream: {repo: down, package: p}
    `;
    const text = `${doc}  ${line}\n`;
    expect(parseVariantFile("f.yaml", text).problems).not.toEqual([]);
    expect(validate(parse(text))).toBe(false);
  });

  it("rejects an upstream mixing the OCI and tarball forms, as porchlight does", () => {
    const text = variantSpec`
      upstream: {oci: "oci://registry.example/web:v1", tarball: "https://example.com/web.tar.gz"}
      downstream: {repo: down, package: p}
    `;
    expect(parseVariantFile("f.yaml", text).problems).not.toEqual([]);
    expect(validate(parse(text))).toBe(false);
  });

  it("rejects an upstream mixing the git and OCI forms, as porchlight does", () => {
    const text = variantSpec`
      upstream: {oci: "oci://registry.example/web:v1", repo: up, package: p}
      downstream: {repo: down, package: p}
    `;
    expect(parseVariantFile("f.yaml", text).problems).not.toEqual([]);
    expect(validate(parse(text))).toBe(false);
  });
});
