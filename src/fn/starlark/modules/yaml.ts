import { Document, isMap, isScalar, isSeq, type Node, parseAllDocuments, type Scalar } from "yaml";
import { positional, unpack } from "../args.js";
import { moduleStruct } from "../compile.js";
import { fail } from "../errors.js";
import { fromBytes, toBytes } from "../utf8.js";
import { Builtin, type Struct } from "../values/callable.js";
import { None, StarFloat, typeName, type Value } from "../values/core.js";
import { StarDict } from "../values/dict.js";
import { StarList } from "../values/list.js";
import { starToYaml } from "../yamlconv.js";

/** A parsed YAML 1.1 node as Starlark data (starlib loads with yaml.v2: yes/no/on/off are booleans). */
function toStar(node: unknown): Value {
  if (isMap(node)) {
    const d = new StarDict();
    for (const p of node.items) d.set(toStar(p.key), toStar(p.value));
    return d;
  }
  if (isSeq(node)) return new StarList(node.items.map(toStar));
  if (!isScalar(node)) return None;
  const v = (node as Scalar).value;
  if (v === null || v === undefined) return None;
  if (typeof v === "string") return toBytes(v);
  if (typeof v === "boolean" || typeof v === "bigint") return v;
  if (typeof v === "number") {
    const src = (node as Scalar).source ?? "";
    return Number.isSafeInteger(v) && !/[.eE]|inf|nan/i.test(src) ? v : new StarFloat(v);
  }
  return toBytes(String(v));
}

function loads(source: string): Value {
  const docs = parseAllDocuments(fromBytes(source), { version: "1.1", merge: true });
  const doc = Array.isArray(docs) ? docs[0] : undefined;
  const err = doc?.errors[0];
  if (err) fail(`yaml: ${err.message.split("\n")[0]}`);
  return doc ? toStar(doc.contents) : None;
}

/** yaml.v2's Marshal layout: keys sorted, sequences not indented under their key, 2-space indent. */
function dumpOne(v: Value): string {
  const doc = new Document(undefined, { version: "1.1" });
  doc.contents = starToYaml(v, undefined, 0, null) as Node;
  return doc.toString({ indent: 2, indentSeq: false, lineWidth: 0 });
}

/** The `yaml` module of `load("encoding/yaml.star", "yaml")` (qri-io/starlib encoding/yaml). */
export function yamlModule(): Struct {
  return moduleStruct("yaml", {
    loads: new Builtin("loads", (_c, args, kwargs) => {
      const [src] = unpack("loads", args, kwargs, ["source"]);
      if (typeof src !== "string") fail(`loads: for parameter source: got ${typeName(src)}, want string`);
      return loads(src);
    }),
    dumps: new Builtin("dumps", (_c, args, kwargs) => {
      if (args.length === 0) positional("dumps", args, kwargs, 1);
      positional("dumps", args, kwargs, args.length);
      return toBytes(args.map(dumpOne).join("---\n"));
    }),
  });
}
