import { UsageError } from "./io.js";

/**
 * kubectl's `-o custom-columns=HEADER:PATH,...` and `-o jsonpath=TEMPLATE`, which porchctl (built on
 * kubectl's printers) takes for every object it lists: the JSONPath subset scripts use — fields
 * (`.a.b`), indexes (`[0]`, `[-1]`), every element (`[*]`), filters (`[?(@.type=='Ready')]`, `==`/`!=`
 * on a field against a quoted string or a number, or a field's presence) — over plain JSON objects.
 */
export type ObjectFormat =
  | { kind: "custom-columns"; columns: { header: string; path: Step[] }[] }
  | { kind: "jsonpath"; template: Segment[] };

type Step =
  | { kind: "field"; name: string }
  | { kind: "index"; index: number }
  | { kind: "all" }
  | { kind: "filter"; path: Step[]; op: "==" | "!=" | "exists"; value?: string | number };

type Segment =
  | { kind: "text"; text: string }
  | { kind: "path"; path: Step[] }
  /** `{range PATH}…{end}`: the body once for each value PATH reaches, relative to it. */
  | { kind: "range"; path: Step[]; body: Segment[] };

/** The object format `-o VALUE` names, or undefined for a format that is none of these two. */
export function parseObjectFormat(value: string): ObjectFormat | undefined {
  if (value.startsWith("custom-columns=")) {
    const spec = value.slice("custom-columns=".length);
    if (spec === "") throw new UsageError("custom-columns format specified but no custom columns given");
    const columns = splitColumns(spec).map((col) => {
      const colon = col.indexOf(":");
      if (colon <= 0)
        throw new UsageError(
          `unexpected custom-columns spec: ${col}, expected <header>:<json-path-expr> (for example NAME:.metadata.name)`,
        );
      return { header: col.slice(0, colon), path: parsePath(stripBraces(col.slice(colon + 1)), col) };
    });
    return { kind: "custom-columns", columns };
  }
  if (value.startsWith("jsonpath=")) {
    const template = value.slice("jsonpath=".length);
    if (template === "") throw new UsageError("template format specified but no template given");
    return { kind: "jsonpath", template: parseTemplate(template) };
  }
  return undefined;
}

/** Columns are split at commas outside brackets (a filter may hold one in its quoted value). */
function splitColumns(spec: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let quote = "";
  let start = 0;
  for (let i = 0; i < spec.length; i++) {
    const c = spec.charAt(i);
    if (quote) {
      if (c === quote) quote = "";
    } else if (c === "'" || c === '"') quote = c;
    else if (c === "[") depth++;
    else if (c === "]") depth--;
    else if (c === "," && depth === 0) {
      out.push(spec.slice(start, i));
      start = i + 1;
    }
  }
  out.push(spec.slice(start));
  return out;
}

function stripBraces(expr: string): string {
  return expr.startsWith("{") && expr.endsWith("}") ? expr.slice(1, -1) : expr;
}

/**
 * A JSONPath template: text, `{PATH}`, `{"quoted text"}` (with `\n`, `\t` escapes), `{@}` (the current
 * value), and `{range PATH}…{end}`, nested as deep as needed.
 */
function parseTemplate(template: string): Segment[] {
  const stack: Segment[][] = [[]];
  const open: Step[][] = [];
  const top = () => stack[stack.length - 1] ?? [];
  let i = 0;
  while (i < template.length) {
    const start = template.indexOf("{", i);
    if (start < 0) {
      top().push({ kind: "text", text: template.slice(i) });
      break;
    }
    if (start > i) top().push({ kind: "text", text: template.slice(i, start) });
    const close = closingBrace(template, start);
    if (close < 0) throw new UsageError(`error parsing jsonpath ${template}, unclosed action`);
    const expr = template.slice(start + 1, close).trim();
    const quoted = /^"((?:[^"\\]|\\.)*)"$/.exec(expr);
    if (quoted)
      top().push({
        kind: "text",
        text: (quoted[1] ?? "").replace(/\\(.)/g, (_, c: string) =>
          c === "n" ? "\n" : c === "t" ? "\t" : c === "r" ? "\r" : c,
        ),
      });
    else if (expr === "end") {
      const body = stack.pop();
      const path = open.pop();
      if (!body || !path || stack.length === 0)
        throw new UsageError(`error parsing jsonpath ${template}: {end} without a {range …} before it`);
      top().push({ kind: "range", path, body });
    } else if (/^range\s/.test(expr)) {
      open.push(parsePath(expr.slice("range".length).trim(), template));
      stack.push([]);
    } else top().push({ kind: "path", path: parsePath(expr, template) });
    i = close + 1;
  }
  if (stack.length !== 1)
    throw new UsageError(`error parsing jsonpath ${template}: a {range …} has no {end}`);
  return top();
}

/** The `}` closing the action opened at `open`, past quoted text that may hold one. */
function closingBrace(template: string, open: number): number {
  let quote = "";
  for (let i = open + 1; i < template.length; i++) {
    const c = template.charAt(i);
    if (quote) {
      if (c === "\\") i++;
      else if (c === quote) quote = "";
    } else if (c === '"' || c === "'") quote = c;
    else if (c === "}") return i;
  }
  return -1;
}

function parsePath(expr: string, whole: string): Step[] {
  const steps: Step[] = [];
  let i = expr.startsWith("$") || expr.startsWith("@") ? 1 : 0;
  const fail = (): never => {
    throw new UsageError(`error parsing jsonpath ${whole}: unsupported expression "${expr}"`);
  };
  while (i < expr.length) {
    const c = expr[i];
    if (c === ".") {
      const m = /^\.([A-Za-z0-9_\-/]*)/.exec(expr.slice(i));
      if (!m) return fail();
      const name = m[1] ?? "";
      if (name !== "") steps.push({ kind: "field", name });
      i += m[0].length;
    } else if (c === "[") {
      const close = matchingBracket(expr, i);
      if (close < 0) fail();
      const inner = expr.slice(i + 1, close).trim();
      if (inner === "*") steps.push({ kind: "all" });
      else if (/^-?\d+$/.test(inner)) steps.push({ kind: "index", index: Number(inner) });
      else if (/^'[^']*'$|^"[^"]*"$/.test(inner)) steps.push({ kind: "field", name: inner.slice(1, -1) });
      else if (inner.startsWith("?(") && inner.endsWith(")"))
        steps.push(parseFilter(inner.slice(2, -1), fail));
      else fail();
      i = close + 1;
    } else fail();
  }
  return steps;
}

function matchingBracket(expr: string, open: number): number {
  let quote = "";
  for (let i = open + 1; i < expr.length; i++) {
    const c = expr.charAt(i);
    if (quote) {
      if (c === quote) quote = "";
    } else if (c === "'" || c === '"') quote = c;
    else if (c === "]") return i;
  }
  return -1;
}

function parseFilter(body: string, fail: () => never): Step {
  const m = /^@((?:\.[A-Za-z0-9_\-/]+)+)\s*(?:(==|!=)\s*(?:'([^']*)'|"([^"]*)"|(-?\d+(?:\.\d+)?)))?$/.exec(
    body.trim(),
  );
  if (!m) return fail();
  // group 1, the path, is not optional
  const path = parsePath(m[1]!, body);
  if (!m[2]) return { kind: "filter", path, op: "exists" };
  const value = m[5] !== undefined ? Number(m[5]) : (m[3] ?? m[4] ?? "");
  return { kind: "filter", path, op: m[2] as "==" | "!=", value };
}

/** Every value `path` reaches in `root` (none when a field is missing). */
function evaluate(root: unknown, path: Step[]): unknown[] {
  let current: unknown[] = [root];
  for (const step of path) {
    const next: unknown[] = [];
    for (const v of current) {
      if (step.kind === "field") {
        if (v !== null && typeof v === "object" && !Array.isArray(v) && step.name in v)
          next.push((v as Record<string, unknown>)[step.name]);
      } else if (!Array.isArray(v)) {
      } else if (step.kind === "index") {
        const at = step.index < 0 ? v.length + step.index : step.index;
        if (at >= 0 && at < v.length) next.push(v[at]);
      } else if (step.kind === "all") {
        next.push(...v);
      } else {
        for (const item of v) {
          const found = evaluate(item, step.path);
          if (
            step.op === "exists"
              ? found.length > 0
              : found.some((f) => (f === step.value) === (step.op === "=="))
          )
            next.push(item);
        }
      }
    }
    current = next;
  }
  return current;
}

/** A template applied to `value`: each path's values space-separated, each range's body per value. */
function render(template: readonly Segment[], value: unknown): string {
  return template
    .map((s) => {
      if (s.kind === "text") return s.text;
      const found = evaluate(value, s.path);
      if (s.kind === "path") return found.map(text).join(" ");
      // a range over one list ranges over its elements
      const items = found.length === 1 && Array.isArray(found[0]) ? found[0] : found;
      return items.map((item) => render(s.body, item)).join("");
    })
    .join("");
}

/** A value as kubectl prints it: strings bare, numbers and booleans as text, the rest as JSON. */
function text(value: unknown): string {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (value === null || value === undefined) return "";
  return JSON.stringify(value);
}

/**
 * `objects` printed in `format`: custom columns as a table (kubectl's: columns three spaces apart,
 * `<none>` where a path reaches nothing, no header with `noHeaders`); a JSONPath template applied to
 * `single` when one object was asked for by name, else to the list (`{.items[*]...}`), with no final
 * line break (as kubectl prints it).
 */
export function formatObjects(
  format: ObjectFormat,
  objects: readonly unknown[],
  opts: { single?: boolean; noHeaders?: boolean; list?: unknown } = {},
): string {
  if (format.kind === "jsonpath") {
    const apply = (root: unknown) => render(format.template, root);
    if (opts.single && objects.length === 1) return apply(objects[0]);
    // a template over the list (`{.items[*]…}`, `{range .items[*]}`) reads the list; any other, each object in turn
    const overList = format.template.some(
      (s) => s.kind !== "text" && s.path[0]?.kind === "field" && s.path[0].name === "items",
    );
    return overList ? apply(opts.list ?? { items: objects }) : objects.map(apply).join(" ");
  }
  const rows = objects.map((o) =>
    format.columns.map((c) => {
      const found = evaluate(o, c.path);
      return found.length === 0 ? "<none>" : found.map(text).join(",");
    }),
  );
  const table = opts.noHeaders ? rows : [format.columns.map((c) => c.header), ...rows];
  return alignColumns(table);
}

/** Rows as kubectl's tabwriter aligns them: each column as wide as its widest cell, then three spaces. */
export function alignColumns(rows: readonly (readonly string[])[]): string {
  if (rows.length === 0) return "";
  const widths: number[] = [];
  for (const row of rows)
    row.forEach((cell, i) => {
      widths[i] = Math.max(widths[i] ?? 0, cell.length);
    });
  return rows
    .map((row) =>
      row
        .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd((widths[i] ?? 0) + 3)))
        .join("")
        .trimEnd(),
    )
    .map((l) => `${l}\n`)
    .join("");
}
