import type { Thread } from "../thread.js";
import type { Kwargs } from "../values/callable.js";
import type { Value } from "../values/core.js";

/** A builtin method: receives the receiver and the call's arguments. */
export type Method<R = Value> = (
  thread: Thread,
  recv: R,
  args: Value[],
  kwargs: Kwargs,
  name: string,
) => Value;

export type MethodTable<R> = Record<string, Method<R>>;
