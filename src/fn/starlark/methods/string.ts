import { noArgs, optInt, positional, wantInt, wantString } from "../args.js";
import { fail } from "../errors.js";
import { formatMethod } from "../format.js";
import { elementsOf } from "../ops.js";
import {
  decodeLastRune,
  decodeRune,
  isCasedRune,
  isDigit,
  isLetter,
  isLower,
  isSpace,
  isTitle,
  isUpper,
  mapRunes,
  runeCount,
  runes,
  toLowerRune,
  toTitleRune,
  toUpperRune,
} from "../utf8.js";
import { None, typeName, type Value } from "../values/core.js";
import { StarList, StarTuple } from "../values/list.js";
import { StringIterable } from "../values/strings.js";
import type { MethodTable } from "./types.js";

/** Go's strings.Trim{,Left,Right}Func with unicode.IsSpace, or with a cutset of runes. */
function stripChars(s: string, chars: string | undefined, left: boolean, right: boolean): string {
  const cut = chars === undefined ? undefined : new Set([...runes(chars)].map((x) => x.r));
  const isStrip = (r: number) => (cut === undefined ? isSpace(r) : cut.has(r));
  let a = 0;
  let b = s.length;
  if (left)
    while (a < b) {
      const d = decodeRune(s, a);
      if (!isStrip(d.r)) break;
      a += d.size;
    }
  if (right)
    while (b > a) {
      const d = decodeLastRune(s, b);
      if (!isStrip(d.r)) break;
      b -= d.size;
    }
  return s.slice(a, b);
}

function strip(name: string, left: boolean, right: boolean) {
  return (_t: unknown, s: string, args: Value[], kwargs: [string, Value][]) => {
    const [c] = positional(name, args, kwargs, 0, 1);
    const chars = c === undefined ? "" : wantStringAt(name, 1, c);
    return stripChars(s, chars === "" ? undefined : chars, left, right);
  };
}

/** Go's `%s: for parameter %d: got T, want string` of UnpackPositionalArgs. */
function wantStringAt(name: string, n: number, v: Value): string {
  if (typeof v !== "string") fail(`${name}: for parameter ${n}: got ${typeName(v)}, want string`);
  return v;
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
    const needle = wantStringAt(name, 1, sub);
    const [a, b] = bounds(name, s, start, end);
    const hay = a < b ? s.slice(a, b) : "";
    const i = last ? hay.lastIndexOf(needle) : hay.indexOf(needle);
    if (i < 0) {
      if (strict) fail("substring not found");
      return -1;
    }
    return a + i;
  };
}

function affix(name: string, atEnd: boolean) {
  return (_t: unknown, s: string, args: Value[], kwargs: [string, Value][]) => {
    const [x, start, end] = positional(name, args, kwargs, 1, 3);
    const [a, b] = bounds(name, s, start, end);
    const sub = a < b ? s.slice(a, b) : "";
    const test = (p: string) => (atEnd ? sub.endsWith(p) : sub.startsWith(p));
    if (x instanceof StarTuple)
      return x.elems.some((p, i) => {
        if (typeof p !== "string") fail(`${name}: want string, got ${typeName(p)}, for element ${i}`);
        return test(p);
      });
    if (typeof x !== "string") fail(`${name}: got ${typeName(x)}, want string or tuple of string`);
    return test(x);
  };
}

/** Go's strings.Fields (max < 0), splitspace and rsplitspace: fields separated by unicode.IsSpace runs. */
function splitWhitespace(s: string, max: number, fromRight: boolean): string[] {
  const res: string[] = [];
  if (!fromRight || max < 0) {
    let start = -1;
    for (const { r, i } of runes(s)) {
      if (isSpace(r)) {
        if (start >= 0) {
          if (max >= 0 && res.length === max) break;
          res.push(s.slice(start, i));
          start = -1;
        }
      } else if (start === -1) start = i;
    }
    if (start >= 0) {
      // a field cut short by maxsplit runs to the end of the string
      res.push(max >= 0 && res.length === max ? s.slice(start) : fieldAt(s, start));
    }
    return res;
  }
  let end = -1;
  let i = s.length;
  while (i > 0) {
    const d = decodeLastRune(s, i);
    if (isSpace(d.r)) {
      if (end >= 0) {
        if (res.length === max) break;
        res.push(s.slice(i, end));
        end = -1;
      }
    } else if (end < 0) end = i;
    i -= d.size;
  }
  if (end >= 0) res.push(s.slice(0, end));
  return res.reverse();
}

/** The field starting at `start`: up to the next space. */
function fieldAt(s: string, start: number): string {
  let i = start;
  while (i < s.length) {
    const d = decodeRune(s, i);
    if (isSpace(d.r)) break;
    i += d.size;
  }
  return s.slice(start, i);
}

function split(name: string, fromRight: boolean) {
  return (_t: unknown, s: string, args: Value[], kwargs: [string, Value][]) => {
    const [sepv, maxv] = positional(name, args, kwargs, 0, 2);
    const max = maxv === undefined ? -1 : wantInt(name, "maxsplit", maxv);
    let parts: string[];
    if (sepv === undefined || sepv === None) parts = splitWhitespace(s, max, fromRight);
    else {
      if (typeof sepv !== "string") fail(`split: got ${typeName(sepv)} for separator, want string`);
      const sep = sepv;
      if (sep === "") fail("split: empty separator");
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
    const sep = wantStringAt(name, 1, sepv);
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

const hasCased = (s: string) => {
  for (const { r } of runes(s)) if (isCasedRune(r)) return true;
  return false;
};
const upper = (s: string) => mapRunes(s, toUpperRune);
const lower = (s: string) => mapRunes(s, toLowerRune);

/** Go's string_title: title case after an uncased rune, lower case after a cased one. */
function title(s: string): string {
  let prevCased = false;
  return mapRunes(s, (r) => {
    const out = prevCased ? toLowerRune(r) : toTitleRune(r);
    prevCased = isCasedRune(out);
    return out;
  });
}

/** Go's string_istitle. */
function isTitleCase(s: string): boolean {
  let cased = false;
  let prevCased = false;
  for (const { r } of runes(s)) {
    if ((r >= 0x41 && r <= 0x5a) || isTitle(r)) {
      if (prevCased) return false;
      prevCased = true;
      cased = true;
    } else if (isLower(r)) {
      if (!prevCased) return false;
      prevCased = true;
      cased = true;
    } else if (isUpper(r)) return false;
    else prevCased = false;
  }
  return cased;
}

const every = (s: string, f: (r: number) => boolean) => {
  for (const { r } of runes(s)) if (!f(r)) return false;
  return s !== "";
};

function na(name: string, f: (s: string) => Value) {
  return (_t: unknown, s: string, args: Value[], kwargs: [string, Value][]) => {
    noArgs(name, args, kwargs);
    return f(s);
  };
}

function iterable(name: string, ords: boolean, codepoints: boolean) {
  return na(name, (s) => new StringIterable(s, ords, codepoints));
}

export const STRING_METHODS: MethodTable<string> = {
  capitalize: na("capitalize", (s) => mapRunes(s, (r, i) => (i === 0 ? toTitleRune(r) : toLowerRune(r)))),
  count(_t, s, args, kwargs) {
    const [sub, start, end] = positional("count", args, kwargs, 1, 3);
    const needle = wantStringAt("count", 1, sub);
    const [a, b] = bounds("count", s, start, end);
    const hay = a < b ? s.slice(a, b) : "";
    if (needle === "") return runeCount(hay) + 1;
    return hay.split(needle).length - 1;
  },
  elems: iterable("elems", false, false),
  elem_ords: iterable("elem_ords", true, false),
  codepoints: iterable("codepoints", false, true),
  codepoint_ords: iterable("codepoint_ords", true, true),
  endswith: affix("endswith", true),
  startswith: affix("startswith", false),
  find: find("find", false, false),
  rfind: find("rfind", true, false),
  index: find("index", false, true),
  rindex: find("rindex", true, true),
  format: (_t, s, args, kwargs) => formatMethod(s, args, kwargs),
  isalnum: predicate("isalnum", (s) => every(s, (r) => isLetter(r) || isDigit(r))),
  isalpha: predicate("isalpha", (s) => every(s, isLetter)),
  isdigit: predicate("isdigit", (s) => every(s, isDigit)),
  islower: predicate("islower", (s) => hasCased(s) && s === lower(s)),
  isupper: predicate("isupper", (s) => hasCased(s) && s === upper(s)),
  isspace: predicate("isspace", (s) => every(s, isSpace)),
  istitle: predicate("istitle", isTitleCase),
  join(_t, s, args, kwargs) {
    const [it] = positional("join", args, kwargs, 1);
    const elems = elementsOf(it);
    if (elems === undefined) fail(`join: for parameter 1: got ${typeName(it)}, want iterable`);
    return elems
      .map((e) => {
        if (typeof e !== "string") fail(`join: in list, want string, got ${typeName(e)}`);
        return e;
      })
      .join(s);
  },
  lower: na("lower", lower),
  upper: na("upper", upper),
  title: na("title", (s) => title(s)),
  strip: strip("strip", true, true),
  lstrip: strip("lstrip", true, false),
  rstrip: strip("rstrip", false, true),
  partition: partition("partition", false),
  rpartition: partition("rpartition", true),
  removeprefix(_t, s, args, kwargs) {
    const [p] = positional("removeprefix", args, kwargs, 1);
    const pre = wantString("removeprefix", "prefix", p);
    return s.startsWith(pre) ? s.slice(pre.length) : s;
  },
  removesuffix(_t, s, args, kwargs) {
    const [p] = positional("removesuffix", args, kwargs, 1);
    const suf = wantString("removesuffix", "suffix", p);
    return suf !== "" && s.endsWith(suf) ? s.slice(0, s.length - suf.length) : s;
  },
  replace(thread, s, args, kwargs) {
    const [o, n, c] = positional("replace", args, kwargs, 2, 3);
    const old = wantStringAt("replace", 1, o);
    const neu = wantStringAt("replace", 2, n);
    let count = c === undefined ? -1 : wantInt("replace", "count", c);
    if (count < 0) count = Number.MAX_SAFE_INTEGER;
    let out = "";
    let i = 0;
    let done = 0;
    if (old === "") {
      // Go's strings.Replace: the new string before each rune and at the end
      const chars = [...runes(s)].map(({ i, size }) => s.slice(i, i + size));
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
    // Go splits on "\n" only, dropping the empty line after a final newline.
    const [keep] = positional("splitlines", args, kwargs, 0, 1);
    if (keep !== undefined && typeof keep !== "boolean")
      fail(`splitlines: for parameter 1: got ${typeName(keep)}, want bool`);
    const lines = keep === true ? s.split(/(?<=\n)/) : s.split("\n");
    if (keep !== true && s.endsWith("\n")) lines.pop();
    return new StarList(lines);
  },
};
