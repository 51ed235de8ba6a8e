import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isMap, isPair, isScalar, isSeq, Pair, parseDocument, Scalar, YAMLMap, YAMLSeq } from "yaml";
import {
  MAP_KIND,
  NODE_TYPE,
  PAIR_KIND,
  SCALAR_KIND,
  SEQ_KIND,
  sameSchema,
} from "../../../src/kpt/yaml/yaml-nodes.js";

const PROJECT = join(import.meta.dirname, "../../..");
const json = (path: string) => JSON.parse(readFileSync(join(PROJECT, path), "utf8"));

/**
 * The fast reader (src/kpt/yaml/yaml-fast.ts, yaml-nodes.ts) makes `yaml`'s nodes without `yaml`'s
 * constructors, relying on how this release marks them. A `yaml` that does it otherwise must fail here,
 * loudly and by name, before any render writes a file wrong — so `yaml` is pinned to one version, and
 * moving it means reading these again (test/kpt/yaml/yaml-fast.test.ts then compares whole documents).
 */
describe("the yaml internals the fast reader relies on", () => {
  it("yaml is pinned to the exact version installed", () => {
    const wanted: string = json("package.json").dependencies.yaml;
    expect(wanted, "package.json pins yaml to one version (no ^ or ~)").toMatch(/^\d+\.\d+\.\d+$/);
    expect(json("node_modules/yaml/package.json").version).toBe(wanted);
  });

  const cases: [string, () => object, symbol, (node: unknown) => boolean][] = [
    ["Scalar", () => new Scalar(1), SCALAR_KIND, isScalar],
    ["YAMLMap", () => new YAMLMap(), MAP_KIND, isMap],
    ["YAMLSeq", () => new YAMLSeq(), SEQ_KIND, isSeq],
    ["Pair", () => new Pair("k", "v"), PAIR_KIND, isPair],
  ];
  it.each(cases)(
    "a %s is marked with its kind under Symbol.for('yaml.node.type'), which yaml's is* test reads",
    (_name, make, kind, is) => {
      const node = make();
      expect((node as unknown as Record<symbol, unknown>)[NODE_TYPE]).toBe(kind);
      // is* reads the mark as any property: one inherited from a prototype counts too.
      const stand = Object.create({ [NODE_TYPE]: kind });
      expect(is(stand)).toBe(true);
    },
  );

  it("a document read with the core schema has the schema the fast reader's collections share", () => {
    const doc = parseDocument("a: [1]\n");
    expect(sameSchema(doc.schema)).toBe(true);
    expect(sameSchema(parseDocument("a: 1\n", { schema: "yaml-1.1" }).schema)).toBe(false);
  });
});
