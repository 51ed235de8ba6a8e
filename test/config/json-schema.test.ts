import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { configJsonSchema, parseRepoConfig } from "../../src/config/index.js";

const root = (path: string) => fileURLToPath(new URL(`../../${path}`, import.meta.url));

function docsExample(): string {
  const text = readFileSync(root("docs/config.md"), "utf8");
  const match = /## Example\n\n```yaml\n([\s\S]*?)```/.exec(text);
  if (!match?.[1]) throw new Error("docs/config.md has no example");
  return match[1];
}

describe("the JSON Schema for editors", () => {
  it("is committed as generated from the zod schema (run `npm run schema` after changing it)", () => {
    const committed: unknown = JSON.parse(readFileSync(root("schema/porchlight.schema.json"), "utf8"));
    expect(committed).toEqual(configJsonSchema());
  });

  it("accepts the example in docs/config.md, as porchlight does", () => {
    const validate = new Ajv2020({ strict: false }).compile(configJsonSchema());
    const example = docsExample();
    expect(parseRepoConfig(example)).toMatchObject({ ok: true });
    expect(validate(parse(example)), JSON.stringify(validate.errors)).toBe(true);
  });

  it.each([
    ["an unknown field", { mergeMetod: "squash" }],
    ["a merge method that does not exist", { mergeMethod: "fast-forward" }],
    ["a guardrail without an image", { guardrails: [{ name: "x" }] }],
    ["an upper-case channel name", { channels: { names: ["Stable"] } }],
  ])("rejects %s, as porchlight does", (_name, config) => {
    const validate = new Ajv2020({ strict: false }).compile(configJsonSchema());
    expect(validate(config)).toBe(false);
    expect(parseRepoConfig(JSON.stringify(config))).toMatchObject({ ok: false });
  });
});
