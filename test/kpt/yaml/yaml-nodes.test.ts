import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isNode, isPair, isScalar, Pair, parseDocument, Scalar, visit, type YAMLMap } from "yaml";
import { newScalar, readPair } from "../../../src/kpt/yaml/yaml-nodes.js";

/** What code can tell of a node: its kind, class, own properties, and what yaml makes of it. */
function observed(node: object): unknown {
  return {
    kind: [isNode(node), isScalar(node), isPair(node)],
    classes: [node instanceof Scalar, node instanceof Pair, node.constructor.name],
    own: Object.entries(node),
    json: JSON.stringify(node),
    clone: isScalar(node) ? Object.entries(node.clone()) : undefined,
  };
}

describe("newScalar and readPair", () => {
  it("make the nodes yaml's constructors make, which yaml then edits and writes as its own", () => {
    const value = fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null));
    fc.assert(
      fc.property(fc.string(), value, fc.constantFrom(undefined, "QUOTE_SINGLE", "PLAIN"), (key, v, type) => {
        const made = [newScalar(v), new Scalar(v)];
        for (const s of made) if (type) s.type = type as Scalar.Type;
        expect(observed(made[0]!)).toEqual(observed(made[1]!));
        const pairs = [readPair(newScalar(key), made[0]), new Pair(new Scalar(key), made[1])];
        expect(observed(pairs[0]!)).toEqual(observed(pairs[1]!));
        const texts = pairs.map((pair) => {
          const doc = parseDocument("a: 1\n");
          (doc.contents as YAMLMap).add(pair, true);
          const seen: string[] = [];
          visit(doc, {
            Scalar: (_, n) => void seen.push(String(n.value)),
            Pair: () => void seen.push("pair"),
          });
          return [String(doc), seen, doc.toJS(), String(doc.clone())];
        });
        expect(texts[0]).toEqual(texts[1]);
      }),
    );
  });
});
