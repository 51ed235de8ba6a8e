import { type Document, Pair, Scalar, Schema, visit, YAMLMap, YAMLSeq } from "yaml";

/**
 * The fast reader's (yaml-fast.ts) way to make the nodes of a document, and the render's for the
 * scalars and pairs it adds to every resource: the same objects `yaml`'s constructors make, for `yaml`
 * and for porchlight, at a fraction of the cost. `yaml` marks each node
 * with its kind under a symbol, and a collection with its schema, defined on the node itself by its
 * constructor (`Object.defineProperty`, a call into V8's runtime for every node: 7 % of the
 * instructions of a 1,000-resource render); `yaml`'s tests of a node's kind (`isScalar`, `isPair`,
 * `isNode`…) read that property as any other, so here it sits on the prototype the nodes of a kind
 * share, itself made from the class's prototype: `instanceof`, `constructor`, the methods, `clone`
 * (which keeps the prototype) and every own property (`value`, `source`, `type`; `key` and `value`;
 * `items`) are as `yaml` makes them, `range` too once read (below); one hidden class for every scalar
 * read, one for every pair, one for every mapping. test/kpt/yaml/yaml-fast.test.ts holds the nodes read equal to
 * `yaml`'s, kinds included.
 */

/** The property `yaml` marks a node's kind with (what nodeKind reads; hot walks read it inline). */
export const NODE_TYPE = Symbol.for("yaml.node.type");

/** The kinds `yaml` marks its nodes with (what `isMap`, `isSeq`, `isScalar`, `isPair` and `isAlias` compare). */
export const MAP_KIND = Symbol.for("yaml.map");
export const SEQ_KIND = Symbol.for("yaml.seq");
export const SCALAR_KIND = Symbol.for("yaml.scalar");
export const PAIR_KIND = Symbol.for("yaml.pair");
export const ALIAS_KIND = Symbol.for("yaml.alias");

/**
 * The kind `yaml` marks a node with (MAP_KIND, SEQ_KIND, SCALAR_KIND…), undefined for anything that is
 * not a node: one read of the mark where a walk over every node of every resource would otherwise ask
 * `isMap`, `isSeq` and `isScalar` in turn, each reading it again.
 */
export function nodeKind(value: unknown): symbol | undefined {
  return typeof value === "object" && value !== null
    ? (value as { [NODE_TYPE]?: symbol })[NODE_TYPE]
    : undefined;
}

/**
 * Where a node read sits in its text (what `range` holds), kept as three numbers on the node: an array
 * of three (72 bytes, against 24) for every node of every file, kept to the render's end, was a fifth
 * of what each young-generation collection copied. Few read a range (comment placement, positions in
 * messages): `range` is a property of the prototype that makes the array the first time it is read,
 * then an own property of the node, as it is on `yaml`'s (and so when set).
 */
const START = Symbol("range start");
const VALUE_END = Symbol("range value end");
const END = Symbol("range end");

interface Located {
  [START]: number;
  [VALUE_END]: number;
  [END]: number;
}

function ownRange(node: object, range: unknown): void {
  Object.defineProperty(node, "range", {
    value: range,
    writable: true,
    enumerable: true,
    configurable: true,
  });
}

const RANGE: PropertyDescriptor = {
  get(this: Located) {
    const range = [this[START], this[VALUE_END], this[END]];
    ownRange(this, range);
    return range;
  },
  set(this: object, range: unknown) {
    ownRange(this, range);
  },
};

interface ScalarFields extends Located {
  value: unknown;
  source: string;
  type: Scalar.Type;
}

const ReadScalar = function (
  this: ScalarFields,
  value: unknown,
  start: number,
  valueEnd: number,
  end: number,
  source: string,
  type: Scalar.Type,
) {
  this.value = value;
  this[START] = start;
  this[VALUE_END] = valueEnd;
  this[END] = end;
  this.source = source;
  this.type = type;
} as unknown as new (
  value: unknown,
  start: number,
  valueEnd: number,
  end: number,
  source: string,
  type: Scalar.Type,
) => Scalar;
ReadScalar.prototype = Object.create(Scalar.prototype, {
  [NODE_TYPE]: { value: SCALAR_KIND },
  range: RANGE,
});

const ReadPair = function (this: { key: unknown; value: unknown }, key: unknown, value: unknown) {
  this.key = key;
  this.value = value;
} as unknown as new <K, V>(
  key: K,
  value: V,
) => Pair<K, V>;
ReadPair.prototype = Object.create(Pair.prototype, { [NODE_TYPE]: { value: PAIR_KIND } });

const NewScalar = function (this: { value: unknown }, value: unknown) {
  this.value = value;
} as unknown as new (
  value: unknown,
) => Scalar;
NewScalar.prototype = Object.create(Scalar.prototype, { [NODE_TYPE]: { value: SCALAR_KIND } });

/** A scalar as `new Scalar(value)` makes it: for the nodes a render adds to every resource. */
export function newScalar<T>(value: T): Scalar<T> {
  return new NewScalar(value) as Scalar<T>;
}

/**
 * A scalar as `new Scalar(value)` then `range` (`[start, valueEnd, end]`), `source` and `type` set
 * make it.
 */
export function readScalar(
  value: unknown,
  start: number,
  valueEnd: number,
  end: number,
  source: string,
  type: Scalar.Type,
): Scalar {
  return new ReadScalar(value, start, valueEnd, end, source, type);
}

/** A pair as `new Pair(key, value)` makes it (for the reader, and for the nodes a render adds). */
export function readPair<K, V>(key: K, value: V): Pair<K, V> {
  return new ReadPair(key, value);
}

/**
 * The schema of the collections made here: the one `yaml` gives a document of the YAML 1.2 core schema
 * (what the fast reader reads), shared, as the prototype that holds it must be (a prototype per
 * document would give each document's nodes hidden classes of their own). A collection uses its
 * schema only for what it holds (`set` and `add` read `sortMapEntries`, `setIn` makes new nodes with
 * its tags), and the reader makes its collections here only for a document whose schema holds the
 * same: sameSchema.
 */
const SHARED_SCHEMA = new Schema({ resolveKnownTags: true, schema: "core" });

/** Whether a collection of a document of `schema` may be made here (with SHARED_SCHEMA instead). */
export function sameSchema(schema: Schema): boolean {
  const a = schema as unknown as Record<string | symbol, unknown>;
  const b = SHARED_SCHEMA as unknown as Record<string | symbol, unknown>;
  const same = (key: string | symbol) => a[key] === b[key];
  return (
    ["compat", "name", "knownTags", "toStringOptions", "sortMapEntries"].every(same) &&
    [MAP_KIND, SCALAR_KIND, SEQ_KIND].every(same) &&
    schema.tags.length === SHARED_SCHEMA.tags.length &&
    schema.tags.every((tag, i) => tag === SHARED_SCHEMA.tags[i])
  );
}

/**
 * A collection's prototype: its kind, and its schema as `yaml`'s constructor defines it (not
 * enumerable); setting it (`clone(schema)` does) defines it on the node, as `yaml`'s does.
 */
function collectionPrototype(base: object, kind: symbol): object {
  return Object.create(base, {
    [NODE_TYPE]: { value: kind },
    range: RANGE,
    schema: {
      get: () => SHARED_SCHEMA,
      set(this: object, schema: unknown) {
        Object.defineProperty(this, "schema", { value: schema, configurable: true, writable: true });
      },
    },
  });
}

interface CollectionFields extends Located {
  items: unknown[];
}

const ReadMap = function (
  this: CollectionFields,
  items: unknown[],
  start: number,
  valueEnd: number,
  end: number,
) {
  this.items = items;
  this[START] = start;
  this[VALUE_END] = valueEnd;
  this[END] = end;
} as unknown as new (
  items: unknown[],
  start: number,
  valueEnd: number,
  end: number,
) => YAMLMap;
ReadMap.prototype = collectionPrototype(YAMLMap.prototype, MAP_KIND);

const ReadSeq = function (
  this: CollectionFields,
  items: unknown[],
  start: number,
  valueEnd: number,
  end: number,
) {
  this.items = items;
  this[START] = start;
  this[VALUE_END] = valueEnd;
  this[END] = end;
} as unknown as new (
  items: unknown[],
  start: number,
  valueEnd: number,
  end: number,
) => YAMLSeq;
ReadSeq.prototype = collectionPrototype(YAMLSeq.prototype, SEQ_KIND);

/**
 * A mapping as `new YAMLMap(schema)` then `items` and `range` (`[start, valueEnd, end]`) set make it,
 * for a schema sameSchema accepts.
 */
export function readMap(items: Pair[], start: number, valueEnd: number, end: number): YAMLMap {
  return new ReadMap(items, start, valueEnd, end);
}

/**
 * A sequence as `new YAMLSeq(schema)` then `items` and `range` (`[start, valueEnd, end]`) set make it,
 * for a schema sameSchema accepts.
 */
export function readSeq(items: unknown[], start: number, valueEnd: number, end: number): YAMLSeq {
  return new ReadSeq(items, start, valueEnd, end);
}

/**
 * A key read as `!!merge <<` (the way kpt writes YAML 1.1's merge key): `yaml` holds a symbol for it,
 * where a plain `<<` is the text `<<` (YAML 1.2). Made the text here too, its tag kept (format.ts
 * writes it back as `!!merge <<`), so both read the same and compare equal. Only files holding `<<`.
 */
export function mergeKeysAsText(doc: Document, text: string): void {
  if (!text.includes("<<")) return;
  visit(doc, {
    Scalar(_, node) {
      if (typeof node.value === "symbol") node.value = "<<";
    },
  });
}
