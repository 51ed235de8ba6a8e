import { createRequire } from "node:module";
import type * as Cel from "@bufbuild/cel";
import type { CelInput, CelResult, CelValue } from "@bufbuild/cel";
import { LRUCache } from "lru-cache";

/**
 * PackageVariantSet template expressions (`repoExpr`, `packageExpr`, `valueExpr`, …) are CEL, as Porch
 * evaluates them with cel-go: here @bufbuild/cel, with CEL's standard functions and macros and nothing
 * more, as Porch's environment has (no extension library), over the variables `repoDefault`,
 * `packageDefault`, `upstream`, `repository` and `target`. An expression must give a string.
 *
 * Repository writers write them, so an evaluation is bounded: CEL has no loops or recursion, only
 * comprehensions (`all`, `exists`, `exists_one`, `map`, `filter`) over lists that already exist. With no
 * comprehension inside another (where one could iterate over, and so double, what the one before made)
 * and an expression at most MAX_LENGTH characters and MAX_DEPTH deep, the work is at most quadratic in
 * its length (0.1 s at worst, measured). Past those bounds an expression is refused with what to change.
 */

export type ExprValue = string | readonly string[] | { readonly [key: string]: ExprValue | undefined };
export type ExprEnv = Readonly<Record<string, ExprValue | undefined>>;

export class ExpressionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ExpressionError";
  }
}

/** Longest expression evaluated, in characters. */
const MAX_LENGTH = 1024;
/** Deepest nesting of an expression's syntax tree (parentheses are no level of it). */
const MAX_DEPTH = 100;

const MACROS = "all, exists, exists_one, map or filter";

type Parsed = ReturnType<typeof Cel.parse>;
type Expr = Parsed["expr"];

interface Program {
  parsed: Parsed;
  run: (bindings: Record<string, CelInput>) => CelResult;
}

/**
 * @bufbuild/cel and its environment, loaded when an expression is first compiled: importing it costs
 * 0.1 s, which every command that loads the variants code (rpkg, catalog) would pay otherwise.
 */
let loaded: { cel: typeof Cel; env: ReturnType<typeof Cel.celEnv> } | undefined;
function cel(): { cel: typeof Cel; env: ReturnType<typeof Cel.celEnv> } {
  if (!loaded) {
    const lib = createRequire(import.meta.url)("@bufbuild/cel") as typeof Cel;
    loaded = { cel: lib, env: lib.celEnv() };
  }
  return loaded;
}

/**
 * Cache: the programs of the expressions evaluated lately, by their text. A set's template is
 * evaluated once per target with the same expressions; parsing is most of the work.
 */
const programs = new LRUCache<string, Program>({ max: 512 });

/** Evaluates `expr` to a string in `env`, or throws an ExpressionError saying what is wrong. */
export function evaluateExpression(expr: string, env: ExprEnv): string {
  const { parsed, run } = compile(expr);
  let value: CelResult;
  try {
    value = run(bindings(env));
  } catch (err) {
    throw tooDeep(err, "evaluate") ?? new ExpressionError(err instanceof Error ? err.message : String(err));
  }
  if (cel().cel.isCelError(value)) {
    const deep = tooDeep(value.cause, "evaluate");
    if (deep) throw deep;
    const at = value.exprId === undefined ? undefined : findExpr(parsed.expr, value.exprId);
    throw new ExpressionError(`${describeError(value.message, at, env)}${where(parsed, at, expr)}`);
  }
  if (typeof value === "string") return value;
  throw new ExpressionError(`must give a string, not ${describeValue(value)}`);
}

function compile(expr: string): Program {
  const cached = programs.get(expr);
  if (cached) return cached;
  if (expr.length > MAX_LENGTH)
    throw new ExpressionError(
      `is ${expr.length} characters long; expressions of at most ${MAX_LENGTH} are evaluated`,
    );
  const parsed = parseExpression(expr);
  checkBounds(parsed, expr);
  let run: Program["run"];
  try {
    run = cel().cel.plan(cel().env, parsed);
  } catch (err) {
    throw tooDeep(err, "plan") ?? new ExpressionError(err instanceof Error ? err.message : String(err));
  }
  const program = { parsed, run };
  programs.set(expr, program);
  return program;
}

/** A stack overflow (the parser, planner and evaluator recurse), as what it means here. */
function tooDeep(err: unknown, doing: string): ExpressionError | undefined {
  return err instanceof RangeError ? new ExpressionError(`is nested too deeply to ${doing}`) : undefined;
}

function parseExpression(expr: string): Parsed {
  try {
    // A comment on the last line needs a line end after it (in @bufbuild/cel's grammar, not cel-go's).
    return cel().cel.parse(`${expr}\n`);
  } catch (err) {
    const deep = tooDeep(err, "parse");
    if (deep) throw deep;
    const open = unterminatedString(expr);
    if (open !== undefined)
      throw new ExpressionError(`unterminated string starting at ${position(expr, open)}`);
    const message = err instanceof Error ? err.message : String(err);
    const m = /^<input>:(\d+):(\d+): (.*)$/s.exec(message);
    throw new ExpressionError(
      m ? `syntax error at ${Number(m[1]) > 1 ? `line ${m[1]}, ` : ""}column ${m[2]}: ${m[3]}` : message,
    );
  }
}

/** Refuses a syntax tree deeper than MAX_DEPTH, or a comprehension inside another. */
function checkBounds(parsed: Parsed, src: string): void {
  const stack: { expr: Expr; depth: number; inComprehension: boolean }[] = [
    { expr: parsed.expr, depth: 1, inComprehension: false },
  ];
  for (let item = stack.pop(); item; item = stack.pop()) {
    const { expr, depth } = item;
    if (depth > MAX_DEPTH)
      throw new ExpressionError(`is nested more than ${MAX_DEPTH} deep; split it into simpler expressions`);
    const kind = expr.exprKind;
    const isComprehension = kind.case === "comprehensionExpr";
    if (isComprehension && item.inComprehension)
      throw new ExpressionError(
        `has a comprehension (${MACROS}) inside another${where(parsed, expr, src)}; porchlight evaluates one level of them`,
      );
    const inComprehension = item.inComprehension || isComprehension;
    for (const child of children(expr)) stack.push({ expr: child, depth: depth + 1, inComprehension });
  }
}

function children(expr: Expr): Expr[] {
  const kind = expr.exprKind;
  switch (kind.case) {
    case "selectExpr":
      return kind.value.operand ? [kind.value.operand] : [];
    case "callExpr":
      return [...(kind.value.target ? [kind.value.target] : []), ...kind.value.args];
    case "listExpr":
      return kind.value.elements;
    case "structExpr":
      return kind.value.entries.flatMap((e) => [
        ...(e.keyKind.case === "mapKey" ? [e.keyKind.value] : []),
        ...(e.value ? [e.value] : []),
      ]);
    case "comprehensionExpr": {
      const c = kind.value;
      return [c.iterRange, c.accuInit, c.loopCondition, c.loopStep, c.result].filter(
        (e): e is Expr => e !== undefined,
      );
    }
    default:
      return [];
  }
}

/**
 * The part of the expression an error is about: the node `id` names, and when that is a variable whose
 * field or key was not found, the field access or index around it.
 */
function findExpr(root: Expr, id: bigint): Expr | undefined {
  const parents = new Map<Expr, Expr>();
  const stack = [root];
  for (let expr = stack.pop(); expr; expr = stack.pop()) {
    if (expr.id === id) {
      let at = expr;
      for (let up = parents.get(at); up && accesses(up, at); up = parents.get(at)) at = up;
      return at;
    }
    for (const child of children(expr)) {
      parents.set(child, expr);
      stack.push(child);
    }
  }
  return undefined;
}

/** Whether `outer` is `inner.field` or `inner[key]`. */
function accesses(outer: Expr, inner: Expr): boolean {
  const kind = outer.exprKind;
  if (kind.case === "selectExpr") return kind.value.operand === inner;
  return kind.case === "callExpr" && kind.value.function === "_[_]" && kind.value.args[0] === inner;
}

function describeError(message: string, at: Expr | undefined, env: ExprEnv): string {
  const root = at && rootName(at);
  if (message === "unresolved attribute" && root !== undefined)
    return `undeclared reference to ${JSON.stringify(root)} (the variables here: ${bound(env).join(", ")})`;
  if (message.startsWith("field not found: ")) return `no such key: ${message.slice(17)}`;
  if (message.startsWith("unbound function: "))
    return `no function ${message.slice(18)}(): CEL's standard functions are there, as in Porch, and no extension library`;
  return message;
}

/** The variable an access chain (`a`, `a.b`, `a['b'].c`) starts from. */
function rootName(expr: Expr): string | undefined {
  for (let at: Expr | undefined = expr; at; ) {
    const kind: Expr["exprKind"] = at.exprKind;
    if (kind.case === "identExpr") return kind.value.name;
    if (kind.case === "selectExpr") at = kind.value.operand;
    else if (kind.case === "callExpr" && kind.value.function === "_[_]") at = kind.value.args[0];
    else return undefined;
  }
  return undefined;
}

/** `, at column 5: a.b["c"]`, naming the part of the expression that failed, if known. */
function where(parsed: Parsed, at: Expr | undefined, src: string): string {
  if (!at) return "";
  const offset = parsed.sourceInfo?.positions[at.id.toString()];
  let text = "";
  try {
    // A comprehension is shown as the call it was written as, when it has no comprehension inside.
    text = cel().cel.unparse(parsed.sourceInfo?.macroCalls[at.id.toString()] ?? at);
  } catch {}
  if (text.length > 80) text = `${text.slice(0, 77)}...`;
  const position_ = offset === undefined ? "" : position(src, offset);
  return position_ || text ? `, at ${[position_, text].filter(Boolean).join(": ")}` : "";
}

function position(src: string, offset: number): string {
  // @bufbuild/cel places an operator at the space before it
  const start = offset + (/^\s*/.exec(src.slice(offset))?.[0].length ?? 0);
  const before = src.slice(0, start).split("\n");
  const column = `column ${(before.at(-1)?.length ?? 0) + 1}`;
  return before.length > 1 ? `line ${before.length}, ${column}` : column;
}

/** Where a string literal that never ends starts, if one does (to word a syntax error). */
function unterminatedString(src: string): number | undefined {
  let i = 0;
  while (i < src.length) {
    const c = src[i];
    if (c === "/" && src[i + 1] === "/") {
      const end = src.indexOf("\n", i);
      if (end < 0) return undefined;
      i = end + 1;
      continue;
    }
    if (c !== "'" && c !== '"') {
      i++;
      continue;
    }
    const raw = /[rR]$/.test(src.slice(0, i));
    const quote = src.startsWith(c.repeat(3), i) ? c.repeat(3) : c;
    let j = i + quote.length;
    while (!src.startsWith(quote, j)) {
      if (j >= src.length || (quote.length === 1 && src[j] === "\n")) return i;
      j += !raw && src[j] === "\\" ? 2 : 1;
    }
    i = j + quote.length;
  }
  return undefined;
}

function describeValue(value: CelValue): string {
  if (cel().cel.isCelMap(value)) return "a map (an object)";
  if (cel().cel.isCelList(value)) return "a list";
  if (value === null) return "null";
  const shown = typeof value === "bigint" || typeof value === "number" || typeof value === "boolean";
  const type = cel()
    .cel.celType(value)
    .name.replace(/^google\.protobuf\./, "")
    .toLowerCase();
  const name = type === "bytes" ? type : `${type === "int" ? "an" : "a"} ${type}`;
  return `${name}${shown ? ` (${String(value)})` : ""}; string(…) turns it into one`;
}

function bound(env: ExprEnv): string[] {
  return Object.keys(env).filter((name) => env[name] !== undefined);
}

/** The template variables as CEL reads them: strings, lists and maps, undefined fields left out. */
function bindings(env: ExprEnv): Record<string, CelInput> {
  const out: Record<string, CelInput> = {};
  for (const [name, value] of Object.entries(env)) if (value !== undefined) out[name] = celInput(value);
  return out;
}

function celInput(value: ExprValue): CelInput {
  if (typeof value === "string") return value;
  if (Array.isArray(value)) return [...value];
  const out: { [key: string]: CelInput } = {};
  for (const [key, v] of Object.entries(value)) if (v !== undefined) out[key] = celInput(v);
  return out;
}
