import { fail } from "./errors.js";
import { decodeRune, encodeRune } from "./utf8.js";
import type { Kwargs } from "./values/callable.js";
import { isInt, StarFloat, typeName, type Value } from "./values/core.js";
import { HashTable } from "./values/dict.js";
import { StarTuple } from "./values/list.js";
import { formatFloat, repr, str } from "./values/repr.js";

function asNumber(v: Value, verb: string): number | bigint {
  if (isInt(v)) return v;
  if (v instanceof StarFloat) return v.v;
  return fail(`%${verb} format requires float, not ${typeName(v)}`);
}

function goExp(s: string): string {
  return s.replace(/e([+-])(\d)$/, "e$10$2");
}

function formatNumber(v: Value, verb: string): string {
  switch (verb) {
    case "d":
    case "i": {
      if (isInt(v)) return String(v);
      if (v instanceof StarFloat) return String(Math.trunc(v.v));
      return fail(`%${verb} format requires integer: ${typeName(v)}`);
    }
    case "o":
    case "x":
    case "X": {
      if (!isInt(v)) return fail(`%${verb} format requires integer: ${typeName(v)}`);
      const s = v.toString(verb === "o" ? 8 : 16);
      return verb === "X" ? s.toUpperCase() : s;
    }
    case "e":
    case "E": {
      const s = goExp(Number(asNumber(v, verb)).toExponential(6));
      return verb === "E" ? s.toUpperCase() : s;
    }
    case "f":
    case "F":
      return Number(asNumber(v, verb)).toFixed(6);
    case "g":
    case "G": {
      const n = Number(asNumber(v, verb));
      const s = isInt(v) ? String(v) : formatFloat(n);
      return verb === "G" ? s.toUpperCase() : s;
    }
  }
  return fail(`unsupported formatting verb ${verb}`);
}

/** The string `%` operator (Go starlark's interpolate). */
export function percentFormat(format: string, args: Value): string {
  const list = args instanceof StarTuple ? args.elems : [args];
  let argi = 0;
  let out = "";
  let i = 0;
  while (i < format.length) {
    const p = format.indexOf("%", i);
    if (p < 0) {
      out += format.slice(i);
      break;
    }
    out += format.slice(i, p);
    i = p + 1;
    if (i >= format.length) fail("incomplete format");
    let arg: Value | undefined;
    if (format[i] === "(") {
      const close = format.indexOf(")", i);
      if (close < 0) fail("incomplete format key");
      const key = format.slice(i + 1, close);
      if (!(args instanceof HashTable)) fail("format requires a mapping");
      arg = args.get(key);
      if (arg === undefined) fail(`key ${repr(key)} not in dict`);
      i = close + 1;
      if (i >= format.length) fail("incomplete format");
    }
    //  i < format.length: checked after each step above
    const verb = format[i]!;
    i++;
    if (verb === "%") {
      out += "%";
      continue;
    }
    if (arg === undefined) {
      if (argi >= list.length) fail("not enough arguments for format string");
      arg = list[argi++]!; // argi < list.length: checked above
    }
    switch (verb) {
      case "s":
        out += str(arg);
        break;
      case "r":
        out += repr(arg);
        break;
      case "c":
        if (typeof arg === "string") {
          if (arg === "" || decodeRune(arg, 0).size !== arg.length)
            fail("%c format requires a single-character string");
          out += arg;
        } else if (isInt(arg)) {
          const r = Number(arg);
          if (!(r >= 0 && r <= 0x10ffff)) fail(`%c format requires a valid Unicode code point, got ${arg}`);
          out += encodeRune(r);
        } else fail(`%c format requires int or single-character string, not ${typeName(arg)}`);
        break;
      default:
        if ("dioxXeEfFgG".includes(verb)) out += formatNumber(arg, verb);
        else fail(`unknown conversion %${verb}`);
    }
  }
  if (argi < list.length && !(args instanceof HashTable)) fail("too many arguments for format string");
  return out;
}

/** str.format (Go starlark's string_format). */
export function formatMethod(format: string, args: Value[], kwargs: Kwargs): string {
  let out = "";
  let auto = 0;
  let manual = false;
  let i = 0;
  while (i < format.length) {
    const c = format.charAt(i);
    if (c === "}") {
      if (format[i + 1] === "}") {
        out += "}";
        i += 2;
        continue;
      }
      fail("single '}' in format");
    }
    if (c !== "{") {
      out += c;
      i++;
      continue;
    }
    if (format[i + 1] === "{") {
      out += "{";
      i += 2;
      continue;
    }
    const close = format.indexOf("}", i);
    if (close < 0) fail("unmatched '{' in format");
    let field = format.slice(i + 1, close);
    i = close + 1;
    let conv = "s";
    const bang = field.indexOf("!");
    if (bang >= 0) {
      conv = field.slice(bang + 1);
      field = field.slice(0, bang);
      if (conv !== "s" && conv !== "r") fail(`unknown conversion "${conv}"`);
    }
    if (field.includes(":")) fail("format spec features not supported in replacement fields");
    let arg: Value;
    if (field === "") {
      if (manual) fail("cannot switch from manual field specification to automatic field numbering");
      if (auto >= args.length) fail("tuple index out of range");
      arg = args[auto++]!; // auto < args.length: checked above
    } else if (/^\d+$/.test(field)) {
      if (auto > 0) fail("cannot switch from automatic field numbering to manual field specification");
      manual = true;
      const n = Number(field);
      if (n >= args.length) fail("tuple index out of range");
      arg = args[n]!; // n < args.length: checked above
    } else {
      const kw = kwargs.find(([k]) => k === field);
      if (!kw) fail(`keyword ${field} not found`);
      arg = kw[1];
    }
    out += conv === "r" ? repr(arg) : str(arg);
  }
  return out;
}
