import { Pair, Scalar } from "yaml";

/**
 * The fast reader's (yaml-fast.ts) way to make the scalars and pairs of a document: the same objects
 * `yaml`'s constructors make, for `yaml` and for porchlight, at a fraction of the cost. `yaml` marks
 * each node with its kind under a symbol, defined on the node itself by its constructor
 * (`Object.defineProperty`, a call into V8's runtime for every node: 7 % of the instructions of a
 * 1,000-resource render); `yaml`'s tests of a node's kind (`isScalar`, `isPair`, `isNode`…) read that
 * property as any other, so here it sits on the prototype the nodes share, itself made from the class's
 * prototype: `instanceof`, `constructor`, the methods, `clone` (which keeps the prototype) and every
 * own property (`value`, `range`, `source`, `type`; `key` and `value`) are as `yaml` makes them, set in
 * the same order (one hidden class for every scalar read, one for every pair).
 * test/kpt/yaml-fast.test.ts holds the nodes read equal to `yaml`'s, kinds included.
 */

const NODE_TYPE = Symbol.for("yaml.node.type");

type Range = [number, number, number];

interface ScalarFields {
  value: unknown;
  range: Range;
  source: string;
  type: Scalar.Type;
}

const ReadScalar = function (
  this: ScalarFields,
  value: unknown,
  range: Range,
  source: string,
  type: Scalar.Type,
) {
  this.value = value;
  this.range = range;
  this.source = source;
  this.type = type;
} as unknown as new (
  value: unknown,
  range: Range,
  source: string,
  type: Scalar.Type,
) => Scalar;
ReadScalar.prototype = Object.create(Scalar.prototype, { [NODE_TYPE]: { value: Symbol.for("yaml.scalar") } });

const ReadPair = function (this: { key: unknown; value: unknown }, key: unknown, value: unknown) {
  this.key = key;
  this.value = value;
} as unknown as new <K, V>(
  key: K,
  value: V,
) => Pair<K, V>;
ReadPair.prototype = Object.create(Pair.prototype, { [NODE_TYPE]: { value: Symbol.for("yaml.pair") } });

/** A scalar as `new Scalar(value)` then `range`, `source` and `type` set, in that order, make it. */
export function readScalar(value: unknown, range: Range, source: string, type: Scalar.Type): Scalar {
  return new ReadScalar(value, range, source, type);
}

/** A pair as `new Pair(key, value)` makes it. */
export function readPair<K, V>(key: K, value: V): Pair<K, V> {
  return new ReadPair(key, value);
}
