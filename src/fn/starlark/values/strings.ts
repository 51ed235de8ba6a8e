import { runes } from "../utf8.js";
import { StarObject, type Value } from "./core.js";

/**
 * What `s.elems()`, `s.elem_ords()`, `s.codepoints()` and `s.codepoint_ords()` return: an iterable that is
 * not a list (Go's stringIterable): its type is "elems" or "codepoints", it cannot be indexed, and it
 * iterates bytes or UTF-8 sequences, as 1-element substrings or as ints.
 */
export class StringIterable extends StarObject {
  readonly typeName: string;
  constructor(
    readonly s: string,
    readonly ords: boolean,
    readonly codepoints: boolean,
  ) {
    super();
    this.typeName = codepoints ? "codepoints" : "elems";
  }

  get method(): string {
    return `${this.codepoints ? "codepoint" : "elem"}${this.ords ? "_ords" : "s"}`;
  }

  elements(): Value[] {
    const out: Value[] = [];
    const s = this.s;
    if (!this.codepoints) {
      for (let i = 0; i < s.length; i++) out.push(this.ords ? s.charCodeAt(i) : s.charAt(i));
      return out;
    }
    for (const { r, i, size } of runes(s)) out.push(this.ords ? r : s.slice(i, i + size));
    return out;
  }
}
