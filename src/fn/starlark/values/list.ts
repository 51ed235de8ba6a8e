import { fail } from "../errors.js";
import { StarObject, type Value } from "./core.js";

/** A mutable list. `iterating` counts active iterations: mutation during iteration is an error. */
export class StarList extends StarObject {
  readonly typeName = "list";
  frozen = false;
  iterating = 0;
  constructor(public elems: Value[] = []) {
    super();
  }
  override truth(): boolean {
    return this.elems.length > 0;
  }
  override freeze(): void {
    if (this.frozen) return;
    this.frozen = true;
    for (const e of this.elems) if (typeof e === "object") e.freeze();
  }
  checkMutable(verb: string): void {
    if (this.frozen) fail(`cannot ${verb} frozen list`);
    if (this.iterating > 0) fail(`cannot ${verb} list during iteration`);
  }
}

export class StarTuple extends StarObject {
  readonly typeName = "tuple";
  constructor(readonly elems: Value[]) {
    super();
  }
  override truth(): boolean {
    return this.elems.length > 0;
  }
  override freeze(): void {
    for (const e of this.elems) if (typeof e === "object") e.freeze();
  }
}

/** The value returned by range(): an immutable arithmetic sequence. */
export class StarRange extends StarObject {
  readonly typeName = "range";
  constructor(
    readonly start: number,
    readonly stop: number,
    readonly step: number,
  ) {
    super();
  }
  get length(): number {
    if (this.step > 0)
      return this.start < this.stop ? Math.floor((this.stop - this.start - 1) / this.step) + 1 : 0;
    return this.start > this.stop ? Math.floor((this.start - this.stop - 1) / -this.step) + 1 : 0;
  }
  at(i: number): number {
    return this.start + i * this.step;
  }
  override truth(): boolean {
    return this.length > 0;
  }
}
