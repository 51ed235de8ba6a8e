import { noArgs, optInt, positional, unpack, wantInt, wantString } from "../args.js";
import { fail } from "../errors.js";
import { formatMethod } from "../format.js";
import { elementsOf } from "../ops.js";
import { None, typeName, type Value } from "../values/core.js";
import { StarList, StarTuple } from "../values/list.js";
import type { MethodTable } from "./types.js";

const WS = /[\s\u0085]/u;

function stripChars(s: string, chars: string | undefined, left: boolean, right: boolean): string {
  const isStrip = (c: string) => (chars === undefined ? WS.test(c) : chars.includes(c));
  let a = 0;
  let b = s.length;
  if (left) while (a < b && isStrip(s[a]!)) a++;
  if (right) while (b > a && isStrip(s[b - 1]!)) b--;
  return s.slice(a, b);
}

function strip(name: string, left: boolean, right: boolean) {
  return (_t: unknown, s: string, args: Value[], kwargs: [string, Value][]) => {
    const [c] = positional(name, args, kwargs, 0, 1);
    const chars = c === undefined || c === None ? undefined : wantString(name, "cutset", c);
    return stripChars(s, chars, left, right);
  };
}

function bounds(name: string, s: string, start?: Value, end?: Value): [number, number] {
  const n = s.length;
  const norm = (i: number | undefined, d: number) =>
    i === undefined ? d : i < 0 ? Math.max(0, i + n) : Math.min(i, n);
  return [norm(optInt(name, "start", start), 0), norm(optInt(name, "end", end), n)];
}

function find(name: string, last: boolean, strict: boolean) {
  return (_t: unknown, s: string, args: Value[], kwargs: [string, Value][]) => {
    const [sub, start, end] = positional(name, args, kwargs, 1, 3);
    const needle = wantString(name, "sub", sub!);
    const [a, b] = bounds(name, s, start, end);
    const hay = s.slice(a, b);
    const i = last ? hay.lastIndexOf(needle) : hay.indexOf(needle);
    if (i < 0 || b < a) {
      if (strict) fail(`${name}: substring not found`);
      return -1;
    }
    return a + i;
  };
}

function affix(name: string, atEnd: boolean) {
  return (_t: unknown, s: string, args: Value[], kwargs: [string, Value][]) => {
    const [x, start, end] = positional(name, args, kwargs, 1, 3);
    const [a, b] = bounds(name, s, start, end);
    const sub = s.slice(a, b);
    const test = (p: Value) => {
      const ps = wantString(name, atEnd ? "suffix" : "prefix", p);
      return atEnd ? sub.endsWith(ps) : sub.startsWith(ps);
    };
    if (x instanceof StarTuple) return x.elems.some(test);
    if (typeof x !== "string") fail(`${name}: got ${typeName(x!)}, want string or tuple of strings`);
    return test(x);
  };
}

function splitWhitespace(s: string, max: number, fromRight: boolean): string[] {
  const words = s.split(/[\s\u0085]+/u).filter((w) => w !== "");
  if (max < 0 || words.length <= max + 1) return words;
  if (!fromRight) {
    // keep the remainder of the string (after max splits) as the last word, stripped on the left only
    let rest = stripChars(s, undefined, true, false);
    const out: string[] = [];
    for (let i = 0; i < max; i++) {
      const m = /[\s\u0085]+/u.exec(rest)!;
      out.push(rest.slice(0, m.index));
      rest = rest.slice(m.index + m[0].length);
    }
    out.push(rest);
    return out;
  }
  let rest = stripChars(s, undefined, false, true);
  const out: string[] = [];
  for (let i = 0; i < max; i++) {
    const m = /[\s\u0085]+(?=[^\s\u0085]*$)/u.exec(rest)!;
    out.unshift(rest.slice(m.index + m[0].length));
    rest = rest.slice(0, m.index);
  }
  out.unshift(rest);
  return out;
}

function split(name: string, fromRight: boolean) {
  return (_t: unknown, s: string, args: Value[], kwargs: [string, Value][]) => {
    const [sepv, maxv] = unpack(name, args, kwargs, ["sep?", "maxsplit?"]);
    const max = maxv === undefined || maxv === None ? -1 : wantInt(name, "maxsplit", maxv);
    let parts: string[];
    if (sepv === undefined || sepv === None) parts = splitWhitespace(s, max, fromRight);
    else {
      const sep = wantString(name, "sep", sepv);
      if (sep === "") fail(`${name}: empty separator`);
      const all = s.split(sep);
      if (max < 0 || all.length <= max + 1) parts = all;
      else if (!fromRight) parts = [...all.slice(0, max), all.slice(max).join(sep)];
      else parts = [all.slice(0, all.length - max).join(sep), ...all.slice(all.length - max)];
    }
    return new StarList(parts);
  };
}

function partition(name: string, last: boolean) {
  return (_t: unknown, s: string, args: Value[], kwargs: [string, Value][]) => {
    const [sepv] = positional(name, args, kwargs, 1);
    const sep = wantString(name, "sep", sepv!);
    if (sep === "") fail(`${name}: empty separator`);
    const i = last ? s.lastIndexOf(sep) : s.indexOf(sep);
    if (i < 0) return new StarTuple(last ? ["", "", s] : [s, "", ""]);
    return new StarTuple([s.slice(0, i), sep, s.slice(i + sep.length)]);
  };
}

function predicate(name: string, test: (s: string) => boolean) {
  return (_t: unknown, s: string, args: Value[], kwargs: [string, Value][]) => {
    noArgs(name, args, kwargs);
    return test(s);
  };
}

const hasCased = (s: string) => s.toLowerCase() !== s.toUpperCase();

function title(s: string): string {
  let prevLetter = false;
  let out = "";
  for (const c of s) {
    const letter = c.toLowerCase() !== c.toUpperCase();
    out += letter ? (prevLetter ? c.toLowerCase() : c.toUpperCase()) : c;
    prevLetter = letter;
  }
  return out;
}

function na(name: string, f: (s: string) => Value) {
  return (_t: unknown, s: string, args: Value[], kwargs: [string, Value][]) => {
    noArgs(name, args, kwargs);
    return f(s);
  };
}

function view(list: Value[]): StarList {
  return new StarList(list);
}

export const STRING_METHODS: MethodTable<string> = {
  capitalize: na("capitalize", (s) => s.charAt(0).toUpperCase() + s.slice(1).toLowerCase()),
  count(_t, s, args, kwargs) {
    const [sub, start, end] = positional("count", args, kwargs, 1, 3);
    const needle = wantString("count", "sub", sub!);
    const [a, b] = bounds("count", s, start, end);
    const hay = s.slice(a, b);
    if (needle === "") return [...hay].length + 1;
    return hay.split(needle).length - 1;
  },
  elems: na("elems", (s) => view([...s])),
  elem_ords: na("elem_ords", (s) => view([...Buffer.from(s, "utf8")])),
  codepoints: na("codepoints", (s) => view([...s])),
  codepoint_ords: na("codepoint_ords", (s) => view([...s].map((c) => c.codePointAt(0)!))),
  endswith: affix("endswith", true),
  startswith: affix("startswith", false),
  find: find("find", false, false),
  rfind: find("rfind", true, false),
  index: find("index", false, true),
  rindex: find("rindex", true, true),
  format: (_t, s, args, kwargs) => formatMethod(s, args, kwargs),
  isalnum: predicate("isalnum", (s) => s !== "" && /^[\p{L}\p{N}]+$/u.test(s)),
  isalpha: predicate("isalpha", (s) => s !== "" && /^\p{L}+$/u.test(s)),
  isdigit: predicate("isdigit", (s) => s !== "" && /^\p{Nd}+$/u.test(s)),
  islower: predicate("islower", (s) => hasCased(s) && s === s.toLowerCase()),
  isupper: predicate("isupper", (s) => hasCased(s) && s === s.toUpperCase()),
  isspace: predicate("isspace", (s) => s !== "" && /^[\s\u0085]+$/u.test(s)),
  istitle: predicate("istitle", (s) => hasCased(s) && title(s) === s),
  join(_t, s, args, kwargs) {
    const [it] = positional("join", args, kwargs, 1);
    const elems = elementsOf(it!);
    if (elems === undefined) fail(`join: got ${typeName(it!)}, want iterable`);
    return elems
      .map((e, i) => {
        if (typeof e !== "string") fail(`join: in list, want string, got ${typeName(e)}`);
        void i;
        return e;
      })
      .join(s);
  },
  lower: na("lower", (s) => s.toLowerCase()),
  upper: na("upper", (s) => s.toUpperCase()),
  title: na("title", (s) => title(s)),
  strip: strip("strip", true, true),
  lstrip: strip("lstrip", true, false),
  rstrip: strip("rstrip", false, true),
  partition: partition("partition", false),
  rpartition: partition("rpartition", true),
  removeprefix(_t, s, args, kwargs) {
    const [p] = positional("removeprefix", args, kwargs, 1);
    const pre = wantString("removeprefix", "prefix", p!);
    return s.startsWith(pre) ? s.slice(pre.length) : s;
  },
  removesuffix(_t, s, args, kwargs) {
    const [p] = positional("removesuffix", args, kwargs, 1);
    const suf = wantString("removesuffix", "suffix", p!);
    return suf !== "" && s.endsWith(suf) ? s.slice(0, s.length - suf.length) : s;
  },
  replace(thread, s, args, kwargs) {
    const [o, n, c] = positional("replace", args, kwargs, 2, 3);
    const old = wantString("replace", "old", o!);
    const neu = wantString("replace", "new", n!);
    let count = c === undefined ? -1 : wantInt("replace", "count", c);
    if (count < 0) count = Number.MAX_SAFE_INTEGER;
    let out = "";
    let i = 0;
    let done = 0;
    if (old === "") {
      const chars = [...s];
      let r = "";
      for (let j = 0; j <= chars.length; j++) {
        if (done < count) {
          r += neu;
          done++;
        }
        if (j < chars.length) r += chars[j];
      }
      thread.budget.charge(r.length);
      return r;
    }
    while (done < count) {
      const j = s.indexOf(old, i);
      if (j < 0) break;
      out += s.slice(i, j) + neu;
      i = j + old.length;
      done++;
    }
    out += s.slice(i);
    thread.budget.charge(out.length);
    return out;
  },
  split: split("split", false),
  rsplit: split("rsplit", true),
  splitlines(_t, s, args, kwargs) {
    const [keep] = unpack("splitlines", args, kwargs, ["keepends?"]);
    const keepends = keep === true;
    const out: string[] = [];
    // biome-ignore lint/suspicious/noControlCharactersInRegex: Python line boundaries include \x1c-\x1e
    const re = /\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]/gu;
    let last = 0;
    for (let m = re.exec(s); m; m = re.exec(s)) {
      out.push(s.slice(last, keepends ? m.index + m[0].length : m.index));
      last = m.index + m[0].length;
    }
    if (last < s.length) out.push(s.slice(last));
    return new StarList(out);
  },
};
