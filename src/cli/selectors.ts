/**
 * Kubernetes' selectors, as `kubectl get` takes them and Porch's API server reads them: label selectors
 * (`-l`: `k=v`, `k==v`, `k!=v`, `k in (a,b)`, `k notin (a,b)`, `k`, `!k`, comma-joined, all must hold)
 * and field selectors (`--field-selector`: `f=v`, `f==v`, `f!=v`, comma-joined, `\` escaping a `,`, `=`
 * or `\` in a value). Parsing is pure; what a field means is the caller's (rpkg get's PackageRevisions).
 */

export type LabelRequirement =
  | { key: string; op: "exists" | "!exists" }
  | { key: string; op: "=" | "!="; value: string }
  | { key: string; op: "in" | "notin"; values: string[] };

export interface FieldRequirement {
  field: string;
  op: "=" | "!=";
  value: string;
}

/** A selector that does not parse: the message names what was found and what was expected. */
export class SelectorError extends Error {
  override name = "SelectorError";
}

type Token =
  | { kind: "id"; text: string }
  | { kind: "op"; text: "!" | "=" | "==" | "!=" | "(" | ")" | "," | "in" | "notin" }
  | { kind: "end"; text: "" };

const SPECIAL = new Set(["!", "=", "(", ")", ","]);

function lex(selector: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < selector.length) {
    const c = selector.charAt(i);
    if (/\s/.test(c)) {
      i++;
    } else if (c === "!" || c === "=") {
      const two = selector.slice(i, i + 2);
      if (two === "!=" || two === "==") {
        out.push({ kind: "op", text: two });
        i += 2;
      } else {
        out.push({ kind: "op", text: c });
        i++;
      }
    } else if (c === "(" || c === ")" || c === ",") {
      out.push({ kind: "op", text: c });
      i++;
    } else {
      let j = i;
      while (j < selector.length && !SPECIAL.has(selector.charAt(j)) && !/\s/.test(selector.charAt(j))) j++;
      const text = selector.slice(i, j);
      out.push(text === "in" || text === "notin" ? { kind: "op", text } : { kind: "id", text });
      i = j;
    }
  }
  out.push({ kind: "end", text: "" });
  return out;
}

const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const NAME_PART = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

function checkKey(key: string): void {
  const slash = key.lastIndexOf("/");
  const [prefix, name] = slash >= 0 ? [key.slice(0, slash), key.slice(slash + 1)] : [undefined, key];
  if ((prefix !== undefined && !DNS_SUBDOMAIN.test(prefix)) || name.length > 63 || !NAME_PART.test(name))
    throw new SelectorError(
      `unable to parse requirement: invalid label key "${key}": a key is an optional DNS subdomain prefix and "/", then 1 to 63 letters, digits, "-", "_" or ".", beginning and ending with a letter or digit (for example kpt.dev/label)`,
    );
}

function checkValue(value: string): void {
  if (value.length > 63 || !LABEL_VALUE.test(value))
    throw new SelectorError(
      `unable to parse requirement: invalid label value "${value}": a value is empty or up to 63 letters, digits, "-", "_" or ".", beginning and ending with a letter or digit`,
    );
}

/** A label selector's requirements; "" selects everything. */
export function parseLabelSelector(selector: string): LabelRequirement[] {
  const tokens = lex(selector);
  let at = 0;
  const peek = () => tokens[at] ?? { kind: "end", text: "" };
  const next = () => tokens[at++] ?? { kind: "end", text: "" };
  const found = (t: Token, expected: string) =>
    new SelectorError(`unable to parse requirement: found '${t.text}', expected: ${expected}`);
  const out: LabelRequirement[] = [];
  if (peek().kind === "end") return out;
  for (;;) {
    let t = next();
    if (t.kind === "op" && t.text === "!") {
      t = next();
      if (t.kind !== "id") throw found(t, "identifier");
      checkKey(t.text);
      out.push({ key: t.text, op: "!exists" });
    } else {
      if (t.kind !== "id") throw found(t, "!, identifier");
      const key = t.text;
      checkKey(key);
      const op = peek();
      if (op.kind === "end" || op.text === ",") out.push({ key, op: "exists" });
      else {
        next();
        if (op.text === "=" || op.text === "==" || op.text === "!=") {
          const v = peek();
          if (v.kind === "op" && v.text !== ",") throw found(v, "identifier");
          if (v.kind === "id") next();
          const value = v.kind === "id" ? v.text : "";
          checkValue(value);
          out.push({ key, op: op.text === "!=" ? "!=" : "=", value });
        } else if (op.text === "in" || op.text === "notin") {
          const open = next();
          if (open.text !== "(") throw found(open, "'('");
          const values: string[] = [];
          for (;;) {
            const v = peek();
            if (v.kind === "id") {
              next();
              checkValue(v.text);
              values.push(v.text);
            } else values.push("");
            const sep = next();
            if (sep.text === ")") break;
            if (sep.text !== ",") throw found(sep, "',' or ')'");
          }
          out.push({ key, op: op.text, values });
        } else throw found(op, "in, notin, =, ==, !=");
      }
    }
    const sep = next();
    if (sep.kind === "end") return out;
    if (sep.text !== ",") throw found(sep, "','");
  }
}

/** Whether `labels` satisfy every requirement. */
export function labelsMatch(
  requirements: readonly LabelRequirement[],
  labels: Record<string, string>,
): boolean {
  return requirements.every((r) => {
    const has = Object.hasOwn(labels, r.key);
    const value = labels[r.key];
    switch (r.op) {
      case "exists":
        return has;
      case "!exists":
        return !has;
      case "=":
        return has && value === r.value;
      case "!=":
        return !has || value !== r.value;
      case "in":
        return has && r.values.includes(value ?? "");
      case "notin":
        return !has || !r.values.includes(value ?? "");
    }
    return false;
  });
}

/** A field selector's requirements (`f=v,f!=v`); "" selects everything. */
export function parseFieldSelector(selector: string): FieldRequirement[] {
  const out: FieldRequirement[] = [];
  for (const term of splitUnescaped(selector, ",")) {
    if (term.trim() === "") {
      if (selector.trim() === "") continue;
      throw new SelectorError(
        `invalid selector: '${selector}'; an empty term (two commas, or one at an end)`,
      );
    }
    const parts = splitTerm(term);
    if (!parts) throw new SelectorError(`invalid selector: '${selector}'; can't understand '${term}'`);
    const field = parts.field.trim();
    if (field === "") throw new SelectorError(`invalid selector: '${selector}'; '${term}' names no field`);
    out.push({ field, op: parts.op, value: parts.value.replace(/\\([\s\S])/g, "$1") });
  }
  return out;
}

/** `text` cut at each `sep` that no backslash escapes. */
function splitUnescaped(text: string, sep: string): string[] {
  const out: string[] = [];
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    if (text.charAt(i) === "\\") i++;
    else if (text.charAt(i) === sep) {
      out.push(text.slice(start, i));
      start = i + 1;
    }
  }
  out.push(text.slice(start));
  return out;
}

/** A term cut at its first operator no backslash escapes: `f=v`, `f==v` or `f!=v`. */
function splitTerm(term: string): { field: string; op: "=" | "!="; value: string } | undefined {
  for (let i = 0; i < term.length; i++) {
    const c = term.charAt(i);
    if (c === "\\") i++;
    else if (c === "!" && term.charAt(i + 1) === "=")
      return { field: term.slice(0, i), op: "!=", value: term.slice(i + 2) };
    else if (c === "=")
      return {
        field: term.slice(0, i),
        op: "=",
        value: term.slice(i + (term.charAt(i + 1) === "=" ? 2 : 1)),
      };
  }
  return undefined;
}
