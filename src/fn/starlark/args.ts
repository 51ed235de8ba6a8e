import { fail } from "./errors.js";
import { suggest } from "./spell.js";
import type { Kwargs } from "./values/callable.js";
import { isInt, None, typeName, type Value } from "./values/core.js";
import { quote } from "./values/repr.js";

/** One slot per parameter: a `name?` one may be absent, a required one is there (unpack checked it). */
type Unpacked<P extends readonly string[]> = {
  [K in keyof P]: P[K] extends `${string}?` ? Value | undefined : Value;
};

/** `Min` values, each there. */
type Present<Min extends number, Acc extends Value[] = []> = Acc["length"] extends Min
  ? Acc
  : Present<Min, [...Acc, Value]>;

/**
 * Go starlark's UnpackArgs: `params` are names, with a `?` suffix for optional ones. Returns one slot per
 * parameter (undefined when an optional one is absent); the type says which slots are always filled.
 */
export function unpack<const P extends readonly string[]>(
  fname: string,
  args: Value[],
  kwargs: Kwargs,
  params: P,
): Unpacked<P> {
  const names = params.map((p) => (p.endsWith("?") ? p.slice(0, -1) : p));
  const out: (Value | undefined)[] = new Array(params.length).fill(undefined);
  if (args.length > params.length)
    fail(`${fname}: got ${args.length} arguments, want at most ${params.length}`);
  for (let i = 0; i < args.length; i++) out[i] = args[i];
  for (const [k, v] of kwargs) {
    const i = names.indexOf(k);
    if (i < 0) fail(suggest(`${fname}: unexpected keyword argument ${quote(k)}`, k, names));
    if (out[i] !== undefined) fail(`${fname}: got multiple values for keyword argument ${quote(k)}`);
    out[i] = v;
  }
  params.forEach((p, i) => {
    if (out[i] === undefined && !p.endsWith("?")) fail(`${fname}: missing argument for ${names[i]}`);
  });
  // every slot of a parameter without `?` was filled, or fail threw above
  return out as Unpacked<P>;
}

/**
 * Go's UnpackPositionalArgs: exactly `min`..`max` positional arguments and no keywords. The first `min` are
 * typed as there, the rest as maybe absent.
 */
export function positional<const Min extends number>(
  fname: string,
  args: Value[],
  kwargs: Kwargs,
  min: Min,
  max: number = min,
): [...Present<Min>, ...(Value | undefined)[]] {
  if (kwargs.length > 0) fail(`${fname}: unexpected keyword arguments`);
  if (args.length < min) {
    if (min === max) fail(`${fname}: got ${args.length} arguments, want ${min}`);
    fail(`${fname}: got ${args.length} arguments, want at least ${min}`);
  }
  if (args.length > max) {
    if (min === max) fail(`${fname}: got ${args.length} arguments, want ${max}`);
    fail(`${fname}: got ${args.length} arguments, want at most ${max}`);
  }
  // at least `min` arguments, checked above
  return args as [...Present<Min>, ...(Value | undefined)[]];
}

export function noArgs(fname: string, args: Value[], kwargs: Kwargs): void {
  positional(fname, args, kwargs, 0);
}

export function wantString(fname: string, param: string, v: Value): string {
  if (typeof v !== "string") fail(`${fname}: for parameter ${param}: got ${typeName(v)}, want string`);
  return v;
}

export function wantInt(fname: string, param: string, v: Value): number {
  if (!isInt(v)) fail(`${fname}: for parameter ${param}: got ${typeName(v)}, want int`);
  return Number(v);
}

/** An optional int that may also be None (for slice-like start/end arguments). */
export function optInt(fname: string, param: string, v: Value | undefined): number | undefined {
  if (v === undefined || v === None) return undefined;
  return wantInt(fname, param, v);
}
