import { fail } from "./errors.js";
import { suggest } from "./spell.js";
import type { Kwargs } from "./values/callable.js";
import { isInt, None, typeName, type Value } from "./values/core.js";
import { quote } from "./values/repr.js";

/**
 * Go starlark's UnpackArgs: `params` are names, with a `?` suffix for optional ones. Returns one slot per
 * parameter (undefined when an optional one is absent).
 */
export function unpack(
  fname: string,
  args: Value[],
  kwargs: Kwargs,
  params: string[],
): (Value | undefined)[] {
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
  return out;
}

/** Go's UnpackPositionalArgs: exactly `min`..`max` positional arguments and no keywords. */
export function positional(fname: string, args: Value[], kwargs: Kwargs, min: number, max = min): Value[] {
  if (kwargs.length > 0) fail(`${fname}: unexpected keyword arguments`);
  if (args.length < min) {
    if (min === max) fail(`${fname}: got ${args.length} arguments, want ${min}`);
    fail(`${fname}: got ${args.length} arguments, want at least ${min}`);
  }
  if (args.length > max) {
    if (min === max) fail(`${fname}: got ${args.length} arguments, want ${max}`);
    fail(`${fname}: got ${args.length} arguments, want at most ${max}`);
  }
  return args;
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
