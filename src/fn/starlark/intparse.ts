import { fail } from "./errors.js";
import { normInt } from "./values/core.js";
import { repr } from "./values/repr.js";

const PREFIX: Record<string, number> = { "0x": 16, "0o": 8, "0b": 2 };

/** int(string, base): Go starlark's rules (optional sign, 0x/0o/0b prefixes, base 0 = infer). */
export function parseIntLiteral(s: string, base: number): number | bigint {
  const bad = () => fail(`int: invalid literal with base ${base}: ${repr(s)}`);
  if (base !== 0 && (base < 2 || base > 36)) fail("int: base must be an integer >= 2 && <= 36");
  let t = s.toLowerCase();
  let neg = false;
  if (t.startsWith("+") || t.startsWith("-")) {
    neg = t[0] === "-";
    t = t.slice(1);
  }
  let b = base;
  const p = PREFIX[t.slice(0, 2)];
  if (p !== undefined && (b === 0 || b === p)) {
    b = p;
    t = t.slice(2);
  } else if (b === 0) {
    if (t.length > 1 && t[0] === "0") bad();
    b = 10;
  }
  if (t === "") bad();
  const digits = "0123456789abcdefghijklmnopqrstuvwxyz".slice(0, b);
  let v = 0n;
  const bb = BigInt(b);
  for (const c of t) {
    const d = digits.indexOf(c);
    if (d < 0) bad();
    v = v * bb + BigInt(d);
  }
  return normInt(neg ? -v : v);
}
