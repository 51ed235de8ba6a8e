import { UsageError } from "./io.js";

/**
 * kubectl's `-o go-template=TEMPLATE`, the part of Go's text/template scripts over Kubernetes objects use:
 * text; actions `{{PIPELINE}}` with `{{-`/`-}}` trimming the white space beside them; field access
 * (`.metadata.name`, `$.items`, `.`); string and number literals; the functions `printf` (%s %v %d %q %%),
 * `index`, `len`, `eq`, `ne`, `not`, `and`, `or`; and `{{range PIPELINE}}…{{else}}…{{end}}`,
 * `{{if PIPELINE}}…{{else if PIPELINE}}…{{else}}…{{end}}`, `{{with PIPELINE}}…{{end}}`. Anything else is
 * refused, naming the action. A missing field prints `<no value>`, as Go prints it.
 */
type Node =
  | { kind: "text"; text: string }
  | { kind: "print"; expr: Expr }
  | { kind: "range" | "if" | "with"; expr: Expr; body: Node[]; otherwise: Node[] };

type Expr =
  | { kind: "field"; root: "dot" | "dollar"; path: string[] }
  | { kind: "literal"; value: unknown }
  | { kind: "call"; name: string; args: Expr[] }
  | { kind: "group"; expr: Expr };

const FUNCTIONS = ["printf", "index", "len", "eq", "ne", "not", "and", "or"];

export type GoTemplate = Node[];

/** The template, parsed; a UsageError names the action it cannot read. */
export function parseGoTemplate(template: string): GoTemplate {
  const pieces = split(template);
  let at = 0;
  const fail = (what: string): never => {
    throw new UsageError(`error parsing go-template ${template}: ${what}`);
  };
  const block = (ends: readonly string[]): { nodes: Node[]; end: string } => {
    const nodes: Node[] = [];
    while (at < pieces.length) {
      const piece = pieces[at++] as { text?: string; action?: string };
      if (piece.text !== undefined) {
        nodes.push({ kind: "text", text: piece.text });
        continue;
      }
      const action = (piece.action ?? "").trim();
      const word = /^(\w+)\b\s*(.*)$/s.exec(action);
      const keyword = word?.[1] ?? "";
      if (keyword === "end" || keyword === "else") {
        if (!ends.includes(keyword)) fail(`unexpected {{${action}}}`);
        return { nodes, end: action };
      }
      if (keyword === "range" || keyword === "if" || keyword === "with") {
        nodes.push(control(keyword, word?.[2] ?? ""));
        continue;
      }
      if (/^(define|template|block)\b/.test(action) || /:=|^\$\w/.test(action))
        fail(
          `{{${action}}} is not in the subset porchlight reads (fields, printf, index, len, eq, ne, not, and, or, range, if, with)`,
        );
      if (action.startsWith("/*")) continue;
      nodes.push({ kind: "print", expr: parseExpr(action, fail) });
    }
    if (ends.length > 0) fail("a {{range}}, {{if}} or {{with}} has no {{end}}");
    return { nodes, end: "" };
  };
  const control = (kind: "range" | "if" | "with", rest: string): Node => {
    const expr = parseExpr(rest, fail);
    const { nodes: body, end } = block(["end", "else"]);
    let otherwise: Node[] = [];
    if (end.startsWith("else")) {
      const elseIf = /^else\s+if\s+(.*)$/s.exec(end);
      otherwise = elseIf ? [control("if", elseIf[1] ?? "")] : block(["end"]).nodes;
    }
    return { kind, expr, body, otherwise };
  };
  return block([]).nodes;
}

/** Text and actions, with `{{-` and `-}}` trimming the white space of the text beside them. */
function split(template: string): ({ text: string } | { action: string })[] {
  const out: ({ text: string } | { action: string })[] = [];
  let i = 0;
  let trimNext = false;
  while (i <= template.length) {
    const open = template.indexOf("{{", i);
    let text = template.slice(i, open < 0 ? undefined : open);
    if (trimNext) text = text.replace(/^\s+/, "");
    if (open < 0) {
      if (text) out.push({ text });
      break;
    }
    const close = template.indexOf("}}", open + 2);
    if (close < 0) throw new UsageError(`error parsing go-template ${template}: unclosed action`);
    let action = template.slice(open + 2, close);
    if (/^-\s/.test(action)) {
      text = text.replace(/\s+$/, "");
      action = action.slice(1);
    }
    trimNext = /\s-$/.test(action);
    if (trimNext) action = action.slice(0, -1);
    if (text) out.push({ text });
    out.push({ action });
    i = close + 2;
  }
  return out;
}

function tokens(text: string, fail: (what: string) => never): string[] {
  const out: string[] = [];
  const re = /\s*("(?:[^"\\]|\\.)*"|`[^`]*`|\(|\)|-?\d+(?:\.\d+)?|\$?[\w.]+|\$|\S)/gy;
  let m: RegExpExecArray | null = re.exec(text);
  while (m && m[0] !== "") {
    const token = m[1] ?? "";
    if (token === "") break;
    out.push(token);
    m = re.exec(text);
  }
  if (out.join("").replace(/\s/g, "") !== text.replace(/\s/g, "")) fail(`cannot read "${text.trim()}"`);
  return out;
}

function parseExpr(text: string, fail: (what: string) => never): Expr {
  const toks = tokens(text, fail);
  let at = 0;
  const operand = (): Expr => {
    const t = toks[at++];
    if (t === undefined) return fail(`"${text.trim()}" ends too soon`);
    if (t === "(") {
      const inner = command();
      if (toks[at++] !== ")") fail(`a "(" in "${text.trim()}" is not closed`);
      return { kind: "group", expr: inner };
    }
    if (t.startsWith('"')) return { kind: "literal", value: JSON.parse(t) };
    if (t.startsWith("`")) return { kind: "literal", value: t.slice(1, -1) };
    if (/^-?\d/.test(t)) return { kind: "literal", value: Number(t) };
    if (t === "true" || t === "false") return { kind: "literal", value: t === "true" };
    if (t === "." || t.startsWith("."))
      return { kind: "field", root: "dot", path: t.split(".").filter(Boolean) };
    if (t === "$" || t.startsWith("$."))
      return { kind: "field", root: "dollar", path: t.split(".").slice(1).filter(Boolean) };
    return fail(`"${t}" is not a field, a literal or one of ${FUNCTIONS.join(", ")}`);
  };
  const command = (): Expr => {
    const t = toks[at];
    if (t !== undefined && FUNCTIONS.includes(t)) {
      at++;
      const args: Expr[] = [];
      while (at < toks.length && toks[at] !== ")" && toks[at] !== "|") args.push(operand());
      return { kind: "call", name: t, args };
    }
    if (t !== undefined && /^[A-Za-z]\w*$/.test(t) && t !== "true" && t !== "false")
      fail(`"${t}" is not a function porchlight knows: ${FUNCTIONS.join(", ")}`);
    return operand();
  };
  let expr = command();
  while (toks[at] === "|") {
    at++;
    const next = command();
    // a pipeline's value is the last argument of the next command
    expr =
      next.kind === "call"
        ? { ...next, args: [...next.args, expr] }
        : fail(`"| ${toks[at - 1]}" pipes into no function`);
  }
  if (at < toks.length) fail(`"${text.trim()}" has more than one value`);
  return expr;
}

/** The template applied to `data`, as Go's text/template writes it. */
export function executeGoTemplate(template: GoTemplate, data: unknown): string {
  const run = (nodes: readonly Node[], dot: unknown): string =>
    nodes
      .map((n) => {
        if (n.kind === "text") return n.text;
        const value = evaluate(n.expr, dot, data);
        if (n.kind === "print") return goString(value);
        if (n.kind === "if") return run(truthy(value) ? n.body : n.otherwise, dot);
        if (n.kind === "with") return truthy(value) ? run(n.body, value) : run(n.otherwise, dot);
        const items = Array.isArray(value)
          ? value
          : value && typeof value === "object"
            ? Object.keys(value)
                .sort()
                .map((k) => (value as Record<string, unknown>)[k])
            : [];
        return items.length > 0 ? items.map((item) => run(n.body, item)).join("") : run(n.otherwise, dot);
      })
      .join("");
  return run(template, data);
}

function field(value: unknown, name: string): unknown {
  return value && typeof value === "object" && !Array.isArray(value)
    ? (value as Record<string, unknown>)[name]
    : undefined;
}

function evaluate(expr: Expr, dot: unknown, root: unknown): unknown {
  switch (expr.kind) {
    case "literal":
      return expr.value;
    case "group":
      return evaluate(expr.expr, dot, root);
    case "field":
      return expr.path.reduce<unknown>(field, expr.root === "dot" ? dot : root);
  }
  const args = expr.args.map((a) => evaluate(a, dot, root));
  switch (expr.name) {
    case "printf":
      return printf(goString(args[0]), args.slice(1));
    case "index":
      return args
        .slice(1)
        .reduce<unknown>((v, k) => (Array.isArray(v) ? v[Number(k)] : field(v, String(k))), args[0]);
    case "len":
      return Array.isArray(args[0])
        ? args[0].length
        : typeof args[0] === "string"
          ? args[0].length
          : args[0] && typeof args[0] === "object"
            ? Object.keys(args[0]).length
            : 0;
    case "eq":
      return args.slice(1).some((a) => a === args[0]);
    case "ne":
      return args[0] !== args[1];
    case "not":
      return !truthy(args[0]);
    case "and":
      return args.find((a) => !truthy(a)) ?? args[args.length - 1];
    default:
      return args.find((a) => truthy(a)) ?? args[args.length - 1];
  }
}

function truthy(v: unknown): boolean {
  if (Array.isArray(v)) return v.length > 0;
  if (v && typeof v === "object") return Object.keys(v).length > 0;
  return Boolean(v);
}

/** A value as Go's fmt prints it with %v: maps as `map[k:v]` (keys sorted), lists as `[a b]`. */
function goString(v: unknown): string {
  if (v === undefined || v === null) return "<no value>";
  if (typeof v === "string") return v;
  if (Array.isArray(v)) return `[${v.map(goString).join(" ")}]`;
  if (typeof v === "object")
    return `map[${Object.keys(v)
      .sort()
      .map((k) => `${k}:${goString((v as Record<string, unknown>)[k])}`)
      .join(" ")}]`;
  return String(v);
}

function printf(format: string, args: readonly unknown[]): string {
  let i = 0;
  return format.replace(/%([-+ 0#]*\d*(?:\.\d+)?)([svdqtf%])/g, (_, _flags: string, verb: string) => {
    if (verb === "%") return "%";
    const arg = args[i++];
    if (arg === undefined) return `%!${verb}(MISSING)`;
    if (verb === "q") return JSON.stringify(goString(arg));
    if (verb === "d") return String(Math.trunc(Number(arg)));
    return goString(arg);
  });
}
