import { ApiError } from "./status.js";

/**
 * Kubernetes' protobuf encoding, read for the few kinds kubectl sends in it: its built-in kinds go as
 * `application/vnd.kubernetes.protobuf` (a SelfSubjectAccessReview from `kubectl auth can-i`), the
 * API's own as JSON. The body is the magic `k8s\0` and a runtime.Unknown (1: typeMeta {1: apiVersion,
 * 2: kind}, 2: raw, the object's own message); the object is read by a table of its fields' numbers
 * (generated.proto of k8s.io/api) into the JSON the rest of the API reads. Fields not in the table are
 * skipped, as protobuf readers do.
 */
export const PROTOBUF = "application/vnd.kubernetes.protobuf";

/** A message's fields by number: a name, and a table for a nested message or the scalar it holds. */
type Table = Readonly<Record<number, readonly [string, Table | "string" | "bool"]>>;

const RESOURCE_ATTRIBUTES: Table = {
  1: ["namespace", "string"],
  2: ["verb", "string"],
  3: ["group", "string"],
  4: ["version", "string"],
  5: ["resource", "string"],
  6: ["subresource", "string"],
  7: ["name", "string"],
};

/** The kinds read, by kind: their spec (field 2 of each; metadata, field 1, carries nothing they need). */
const KINDS: Readonly<Record<string, Table>> = {
  SelfSubjectAccessReview: {
    2: [
      "spec",
      {
        1: ["resourceAttributes", RESOURCE_ATTRIBUTES],
        2: ["nonResourceAttributes", { 1: ["path", "string"], 2: ["verb", "string"] }],
      },
    ],
  },
  SelfSubjectRulesReview: { 2: ["spec", { 1: ["namespace", "string"] }] },
};

const malformed = () =>
  new ApiError(
    "BadRequest",
    "the request body is not a Kubernetes protobuf message (k8s\\0 and a runtime.Unknown)",
  );

/** The fields of one message: each number with its values (varints as numbers, the rest as bytes). */
function fieldsOf(buf: Buffer): Map<number, (Buffer | number)[]> {
  const out = new Map<number, (Buffer | number)[]>();
  let at = 0;
  const varint = (): number => {
    let value = 0;
    for (let shift = 0; shift < 64; shift += 7) {
      if (at >= buf.length) throw malformed();
      const b = buf[at++] as number;
      value += (b & 0x7f) * 2 ** shift;
      if ((b & 0x80) === 0) return value;
    }
    throw malformed();
  };
  while (at < buf.length) {
    const key = varint();
    const [number, wire] = [Math.floor(key / 8), key % 8];
    let value: Buffer | number;
    if (wire === 0) value = varint();
    else if (wire === 2) {
      const length = varint();
      if (at + length > buf.length) throw malformed();
      value = buf.subarray(at, at + length);
      at += length;
    } else if (wire === 1 || wire === 5) {
      at += wire === 1 ? 8 : 4;
      continue;
    } else throw malformed();
    out.set(number, [...(out.get(number) ?? []), value]);
  }
  if (at > buf.length) throw malformed();
  return out;
}

function decode(buf: Buffer, table: Table): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [number, values] of fieldsOf(buf)) {
    const field = table[number];
    const last = values[values.length - 1];
    if (!field || last === undefined) continue;
    const [name, type] = field;
    if (type === "bool") out[name] = last === 1;
    else if (!Buffer.isBuffer(last)) throw malformed();
    else out[name] = type === "string" ? last.toString("utf8") : decode(last, type);
  }
  return out;
}

/** The object of a protobuf body, as JSON text; a kind not in the table is 415, as a server without it answers. */
export function protobufAsJson(body: Buffer): string {
  if (body.length < 4 || body.subarray(0, 4).toString("latin1") !== "k8s\0") throw malformed();
  const unknown = fieldsOf(body.subarray(4));
  const typeMeta = unknown.get(1)?.[0];
  const raw = unknown.get(2)?.[0];
  if (!Buffer.isBuffer(typeMeta) || !Buffer.isBuffer(raw)) throw malformed();
  const { apiVersion, kind } = decode(typeMeta, { 1: ["apiVersion", "string"], 2: ["kind", "string"] });
  const table = KINDS[String(kind)];
  if (!table)
    throw new ApiError(
      "UnsupportedMediaType",
      `${String(kind)} is not read as ${PROTOBUF}: send it as application/json`,
    );
  return JSON.stringify({ apiVersion, kind, metadata: {}, ...decode(raw, table) });
}
