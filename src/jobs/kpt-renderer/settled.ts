import { type FieldPattern, type Rerun, UNSETTLED } from "../../fn/types.js";

/**
 * The render of a render's output, answered by the functions' declarations (Rerun): for one resource's
 * shares of a pipeline's steps (those that ran over it, in order), its shares of a second render of the
 * output, or undefined where that render could change the resource or report otherwise.
 *
 * Each step declares that a run over its own output changes nothing (and what it reports then). The
 * second render gives step i not its own output but the pipeline's, which differs from it in what the
 * steps after i wrote or added; so where a later step writes (or adds) a field step i reads or writes,
 * nothing is promised.
 * Where none does, each step sees its own output in every field it looks at: it changes nothing, and
 * reports what it declared.
 */
export class SettledShares {
  /** Each list of fields an id (by the list's text), and whether two lists meet, by their ids. */
  private readonly ids = new Map<string, number>();
  private idOf = new WeakMap<readonly FieldPattern[], number>();
  private readonly lists: (readonly FieldPattern[])[] = [];
  private readonly meets = new Map<number, boolean>();

  /**
   * `steps`: each step's declaration (undefined: none); `shares`: the resource's share of each step,
   * NOT_RUN where the step did not run over it.
   */
  again(steps: readonly (Rerun | undefined)[], shares: readonly unknown[]): unknown[] | undefined {
    // Bounded: lists told by their text (a setter's fields) add up over many packages.
    if (this.lists.length > MAX_LISTS) this.forget();
    const out: unknown[] = new Array(steps.length);
    // The ids of the lists of fields each step so far reads or writes.
    const looked: number[] = [];
    for (let s = 0; s < steps.length; s++) {
      const share = shares[s];
      if (share === NOT_RUN) {
        out[s] = NOT_RUN;
        continue;
      }
      const rerun = steps[s];
      if (!rerun) return undefined;
      const next = rerun.again(share);
      if (next === UNSETTLED) return undefined;
      const writes = this.id(rerun.writes(share));
      const creates = rerun.creates ? this.id(rerun.creates(share)) : undefined;
      for (let l = 0; l < looked.length; l++) {
        const earlier = looked[l] as number; // l < looked.length
        if (this.meet(writes, earlier) || (creates !== undefined && this.meet(creates, earlier)))
          return undefined;
      }
      out[s] = next;
      looked.push(this.id(rerun.reads(share)), writes);
    }
    return out;
  }

  private forget(): void {
    this.ids.clear();
    this.lists.length = 0;
    this.meets.clear();
    this.idOf = new WeakMap();
  }

  /** The id of a list of fields: by the list itself where a declaration hands out the same one, else by its text. */
  private id(list: readonly FieldPattern[]): number {
    let id = this.idOf.get(list);
    if (id !== undefined) return id;
    const text = list.map((p) => p.join("\u0001")).join("\u0002");
    id = this.ids.get(text);
    if (id === undefined) {
      id = this.lists.length;
      this.lists.push(list);
      this.ids.set(text, id);
    }
    this.idOf.set(list, id);
    return id;
  }

  private meet(a: number, b: number): boolean {
    const key = a * 0x100000 + b;
    let hit = this.meets.get(key);
    if (hit === undefined) {
      hit = false;
      const x = this.lists[a] ?? [];
      const y = this.lists[b] ?? [];
      for (let i = 0; i < x.length && !hit; i++)
        for (let j = 0; j < y.length && !hit; j++)
          hit = fieldsOverlap(x[i] as FieldPattern, y[j] as FieldPattern);
      this.meets.set(key, hit);
    }
    return hit;
  }
}

/** How many lists of fields a SettledShares tells apart before it forgets them all. */
const MAX_LISTS = 4096;

/** A step's share where it did not run over the resource (its package is not below the step's). */
export const NOT_RUN: unique symbol = Symbol("not run");

/** Whether some field is named by both `a` and `b` (FieldPattern: where two steps meet). */
export function fieldsOverlap(a: FieldPattern, b: FieldPattern): boolean {
  const seen = new Set<number>();
  const go = (i: number, j: number): boolean => {
    if (i === a.length && j === b.length) return true;
    const at = i * (b.length + 1) + j;
    if (seen.has(at)) return false;
    seen.add(at);
    const x = a[i];
    const y = b[j];
    if (x === "**") return go(i + 1, j) || (j < b.length && go(i, j + 1));
    if (y === "**") return go(i, j + 1) || (i < a.length && go(i + 1, j));
    if (x === undefined || y === undefined) return false;
    if (x === y || (x === "*" && isElement(y)) || (y === "*" && isElement(x))) return go(i + 1, j + 1);
    return false;
  };
  return go(0, 0);
}

/** `*` stands for a sequence's elements: it meets `*` and an index, never a map's key. */
function isElement(segment: string): boolean {
  return segment === "*" || /^\d+$/.test(segment);
}
