import { positional } from "../args.js";
import { moduleStruct } from "../compile.js";
import { fail } from "../errors.js";
import { Builtin, type Struct } from "../values/callable.js";
import { isInt, StarFloat, typeName, type Value } from "../values/core.js";

function param(name: string, i: number, v: Value): number {
  if (isInt(v)) return Number(v);
  if (v instanceof StarFloat) return v.v;
  return fail(`${name}: for parameter ${i}: got ${typeName(v)}, want a float or an int`);
}

/** Go's math.Round: half away from zero (JS Math.round rounds half up). */
const round = (x: number) => (x < 0 ? -Math.round(-x) : Math.round(x));

const UNARY: Record<string, (x: number) => number> = {
  abs: Math.abs,
  ceil: Math.ceil,
  floor: Math.floor,
  round,
  exp: Math.exp,
  sqrt: Math.sqrt,
  acos: Math.acos,
  asin: Math.asin,
  atan: Math.atan,
  cos: Math.cos,
  sin: Math.sin,
  tan: Math.tan,
  degrees: (x) => (360 * x) / (2 * Math.PI),
  radians: (x) => (2 * Math.PI * x) / 360,
  acosh: Math.acosh,
  asinh: Math.asinh,
  atanh: Math.atanh,
  cosh: Math.cosh,
  sinh: Math.sinh,
  tanh: Math.tanh,
};

const BINARY: Record<string, (x: number, y: number) => number> = { atan2: Math.atan2, hypot: Math.hypot };

/**
 * The `math` module of `load("math.star", "math")`: go.starlark.net/lib/math as the catalog function
 * vendors it, where every function takes ints or floats and returns a float.
 */
export function mathModule(): Struct {
  const members: Record<string, Value> = {};
  for (const [name, f] of Object.entries(UNARY)) {
    members[name] = new Builtin(name, (_c, args, kwargs) => {
      const [x] = positional(name, args, kwargs, 1);
      return new StarFloat(f(param(name, 1, x)));
    });
  }
  for (const [name, f] of Object.entries(BINARY)) {
    members[name] = new Builtin(name, (_c, args, kwargs) => {
      const [x, y] = positional(name, args, kwargs, 2);
      return new StarFloat(f(param(name, 1, x), param(name, 2, y)));
    });
  }
  members.e = new StarFloat(Math.E);
  members.phi = new StarFloat((1 + Math.sqrt(5)) / 2);
  members.pi = new StarFloat(Math.PI);
  return moduleStruct("math", members);
}
