import { fail } from "../errors.js";
import { StarObject, type Value } from "./core.js";
import { type HashKey, hashKey } from "./hash.js";

export interface Entry {
  k: Value;
  v: Value;
}

/** An insertion-ordered hash table, shared by dict and set. */
export class HashTable extends StarObject {
  readonly typeName: string = "dict";
  frozen = false;
  iterating = 0;
  readonly map = new Map<HashKey, Entry>();
  /** The YAML node this dict was made from, kept so the kpt glue can write back in place. */
  origin?: unknown;

  get size(): number {
    return this.map.size;
  }
  override truth(): boolean {
    return this.map.size > 0;
  }
  override freeze(): void {
    if (this.frozen) return;
    this.frozen = true;
    for (const e of this.map.values()) {
      if (typeof e.k === "object") e.k.freeze();
      if (typeof e.v === "object") e.v.freeze();
    }
  }
  checkMutable(verb: string): void {
    if (this.frozen) fail(`cannot ${verb} frozen hash table`);
    if (this.iterating > 0) fail(`cannot ${verb} hash table during iteration`);
  }
  get(k: Value): Value | undefined {
    if (typeof k === "string" && k.charCodeAt(0) !== 1) return this.map.get(k)?.v;
    return this.map.get(hashKey(k))?.v;
  }
  has(k: Value): boolean {
    return this.map.has(hashKey(k));
  }
  set(k: Value, v: Value): void {
    this.checkMutable("insert into");
    const hk = typeof k === "string" && k.charCodeAt(0) !== 1 ? k : hashKey(k);
    const e = this.map.get(hk);
    if (e) e.v = v;
    else this.map.set(hk, { k, v });
  }
  delete(k: Value): Value | undefined {
    const hk = hashKey(k);
    const e = this.map.get(hk);
    if (!e) return undefined;
    this.checkMutable("delete from");
    this.map.delete(hk);
    return e.v;
  }
  clear(): void {
    if (this.map.size > 0) this.checkMutable("clear");
    this.map.clear();
  }
  keys(): Value[] {
    const out: Value[] = [];
    for (const e of this.map.values()) out.push(e.k);
    return out;
  }
}

export class StarDict extends HashTable {
  override readonly typeName: string = "dict";
}

export class StarSet extends HashTable {
  override readonly typeName: string = "set";
  add(k: Value): void {
    this.set(k, true);
  }
}
