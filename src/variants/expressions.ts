/**
 * The part of CEL that PackageVariantSet templates use in practice, evaluated without running any code:
 * string literals, the template variables (`repoDefault`, `packageDefault`, `upstream`, `repository`,
 * `target`), field access (`repository.name`, `target.labels['env']`) and `+` to join strings. Anything
 * else is refused with an error that says so, rather than guessed at.
 */

export type ExprValue = string | readonly string[] | { readonly [key: string]: ExprValue | undefined };
export type ExprEnv = Readonly<Record<string, ExprValue | undefined>>;

export class ExpressionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ExpressionError";
  }
}

const SUPPORTED =
  "porchlight evaluates only string literals, the variables repoDefault, packageDefault, upstream, repository and target, field access (a.b, a['b']) and + between strings";

type Token =
  | { t: "str"; v: string; at: number }
  | { t: "id"; v: string; at: number }
  | { t: "op"; v: "." | "+" | "[" | "]" | "(" | ")"; at: number };

function tokenize(src: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i] as string;
    if (/\s/.test(c)) {
      i++;
    } else if (c === "'" || c === '"') {
      let j = i + 1;
      let v = "";
      while (j < src.length && src[j] !== c) {
        if (src[j] === "\\") {
          const next = src[j + 1];
          if (next === undefined) break;
          v += next === "n" ? "\n" : next === "t" ? "\t" : next;
          j += 2;
        } else {
          v += src[j];
          j++;
        }
      }
      if (j >= src.length) throw new ExpressionError(`unterminated string starting at column ${i + 1}`);
      out.push({ t: "str", v, at: i });
      i = j + 1;
    } else if (/[A-Za-z_]/.test(c)) {
      const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(src.slice(i));
      const v = m?.[0] ?? c;
      out.push({ t: "id", v, at: i });
      i += v.length;
    } else if (".+[]()".includes(c)) {
      out.push({ t: "op", v: c as "." | "+" | "[" | "]" | "(" | ")", at: i });
      i++;
    } else {
      throw new ExpressionError(`not supported here: ${JSON.stringify(c)} at column ${i + 1}; ${SUPPORTED}`);
    }
  }
  return out;
}

/** Evaluates `expr` to a string in `env`, or throws an ExpressionError saying what is wrong. */
export function evaluateExpression(expr: string, env: ExprEnv): string {
  const tokens = tokenize(expr);
  let pos = 0;
  const peek = () => tokens[pos];
  const fail = (what: string): never => {
    throw new ExpressionError(what);
  };

  const parseSum = (): ExprValue => {
    let left = parsePostfix();
    while (peek()?.t === "op" && peek()?.v === "+") {
      pos++;
      const right = parsePostfix();
      if (typeof left !== "string" || typeof right !== "string") fail(`+ joins strings only; ${SUPPORTED}`);
      left = (left as string) + (right as string);
    }
    return left;
  };

  const parsePostfix = (): ExprValue => {
    let value = parsePrimary();
    let path = "";
    for (;;) {
      const tok = peek();
      if (tok?.t !== "op" || (tok.v !== "." && tok.v !== "[")) return value;
      pos++;
      let key: string;
      if (tok.v === ".") {
        const id = tokens[pos++];
        if (id?.t !== "id") return fail(`expected a field name after '.' at column ${tok.at + 1}`);
        key = id.v;
        if (peek()?.t === "op" && peek()?.v === "(")
          fail(`not supported here: function call ${key}(); ${SUPPORTED}`);
      } else {
        const str = tokens[pos++];
        const close = tokens[pos++];
        if (str?.t !== "str" || close?.t !== "op" || close.v !== "]")
          return fail(`not supported here: only a quoted key may go between [ and ] (column ${tok.at + 1})`);
        key = str.v;
      }
      path += `.${key}`;
      if (typeof value !== "object" || Array.isArray(value)) return fail(`no such key: ${path.slice(1)}`);
      const next = (value as Record<string, ExprValue | undefined>)[key];
      if (next === undefined) return fail(`no such key: ${key}`);
      value = next;
    }
  };

  const parsePrimary = (): ExprValue => {
    const tok = tokens[pos++];
    if (!tok) return fail("unexpected end of expression");
    if (tok.t === "str") return tok.v;
    if (tok.t === "id") {
      if (peek()?.t === "op" && peek()?.v === "(")
        return fail(`not supported here: function call ${tok.v}(); ${SUPPORTED}`);
      const value = env[tok.v];
      if (value === undefined) return fail(`undeclared reference to ${JSON.stringify(tok.v)}; ${SUPPORTED}`);
      return value;
    }
    if (tok.v === "(") {
      const inner = parseSum();
      const close = tokens[pos++];
      if (close?.t !== "op" || close.v !== ")") return fail(`missing ')' for '(' at column ${tok.at + 1}`);
      return inner;
    }
    return fail(`not supported here: ${JSON.stringify(tok.v)} at column ${tok.at + 1}; ${SUPPORTED}`);
  };

  const value = parseSum();
  const rest = peek();
  if (rest) fail(`not supported here: ${JSON.stringify(rest.v)} at column ${rest.at + 1}; ${SUPPORTED}`);
  if (typeof value !== "string") fail("the expression must give a string, not an object or list");
  return value as string;
}
