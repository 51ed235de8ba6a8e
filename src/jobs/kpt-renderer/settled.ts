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
  private readonly overlaps = new Map<string, boolean>();

  /**
   * `steps`: each step's declaration (undefined: none); `shares`: the resource's share of each step,
   * NOT_RUN where the step did not run over it.
   */
  again(steps: readonly (Rerun | undefined)[], shares: readonly unknown[]): unknown[] | undefined {
    const out: unknown[] = [];
    const looked: (readonly FieldPattern[])[] = [];
    for (let s = 0; s < steps.length; s++) {
      const share = shares[s];
      if (share === NOT_RUN) {
        out.push(NOT_RUN);
        looked.push([]);
        continue;
      }
      const rerun = steps[s];
      if (!rerun) return undefined;
      const next = rerun.again(share);
      if (next === UNSETTLED) return undefined;
      const writes = rerun.writes(share);
      const changes = [...writes, ...(rerun.creates?.(share) ?? [])];
      for (const earlier of looked) if (this.anyOverlap(changes, earlier)) return undefined;
      out.push(next);
      looked.push([...rerun.reads(share), ...writes]);
    }
    return out;
  }

  private anyOverlap(a: readonly FieldPattern[], b: readonly FieldPattern[]): boolean {
    for (const x of a) {
      for (const y of b) {
        const key = `${x.join("\u0001")}\0${y.join("\u0001")}`;
        let hit = this.overlaps.get(key);
        if (hit === undefined) {
          hit = fieldsOverlap(x, y);
          this.overlaps.set(key, hit);
        }
        if (hit) return true;
      }
    }
    return false;
  }
}

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
