/**
 * Kubernetes' label selectors, the one reader of them (docs/architecture.md: on the floor, since the
 * command line, Porch's API, PackageVariantSets and kustomize's functions all select by labels). The
 * string form as `kubectl get -l`, Porch's API server and kustomize read it (labels.Parse): `k=v`,
 * `k==v`, `k!=v`, `k in (a,b)`, `k notin (a,b)`, `k` (exists), `!k` (does not exist), `k>1`, `k<1`,
 * comma-joined, all must hold; and the structured form of metav1.LabelSelector (`matchLabels`,
 * `matchExpressions` with In, NotIn, Exists, DoesNotExist), read into the same requirements.
 */

import { labelValueProblems, qualifiedNameProblems } from "./object-meta.js";

export type LabelRequirement =
  | { key: string; op: "exists" | "!exists" }
  | { key: string; op: "=" | "!="; value: string }
  | { key: string; op: "in" | "notin"; values: string[] }
  | { key: string; op: "gt" | "lt"; value: number };

/** A selector that does not parse: the message names the selector, what was found and what was expected. */
export class SelectorError extends Error {
  override name = "SelectorError";
}

type Token =
  | { kind: "id"; text: string }
  | { kind: "op"; text: "!" | "=" | "==" | "!=" | "(" | ")" | "," | "in" | "notin" | ">" | "<" }
  | { kind: "end"; text: "" };

const SPECIAL = new Set(["!", "=", "(", ")", ",", ">", "<"]);

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
    } else if (c === "(" || c === ")" || c === "," || c === ">" || c === "<") {
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

function checkKey(key: string): void {
  if (qualifiedNameProblems(key).length > 0)
    throw new SelectorError(
      `unable to parse requirement: invalid label key "${key}": a key is an optional DNS subdomain prefix and "/", then 1 to 63 letters, digits, "-", "_" or ".", beginning and ending with a letter or digit (for example kpt.dev/label)`,
    );
}

function checkValue(value: string): void {
  if (labelValueProblems(value).length > 0)
    throw new SelectorError(
      `unable to parse requirement: invalid label value "${value}": a value is empty or up to 63 letters, digits, "-", "_" or ".", beginning and ending with a letter or digit`,
    );
}

/** A label selector's requirements; "" selects everything. */
export function parseLabelSelector(selector: string): LabelRequirement[] {
  try {
    return requirements(selector);
  } catch (e) {
    if (e instanceof SelectorError) throw new SelectorError(`label selector "${selector}": ${e.message}`);
    throw e;
  }
}

function requirements(selector: string): LabelRequirement[] {
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
        } else if (op.text === ">" || op.text === "<") {
          const v = next();
          if (v.kind !== "id" || !/^-?[0-9]+$/.test(v.text))
            throw new SelectorError(
              `unable to parse requirement: found '${v.text}', expected: an integer after '${op.text}'`,
            );
          out.push({ key, op: op.text === ">" ? "gt" : "lt", value: Number(v.text) });
        } else throw found(op, "in, notin, =, ==, !=, gt, lt");
      }
    }
    const sep = next();
    if (sep.kind === "end") return out;
    if (sep.text !== ",") throw found(sep, "','");
  }
}

/** Whether `labels` satisfy every requirement (none: always). */
export function labelsMatch(
  requirements: readonly LabelRequirement[],
  labels: Readonly<Record<string, string>>,
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
      case "gt":
      case "lt": {
        // Kubernetes compares a label that reads as an integer; any other matches neither
        if (!has || !/^-?[0-9]+$/.test(value ?? "")) return false;
        return r.op === "gt" ? Number(value) > r.value : Number(value) < r.value;
      }
    }
    return false;
  });
}

/** metav1.LabelSelector, as PackageVariantSets write it (its schema checks the operators' values). */
export interface StructuredLabelSelector {
  matchLabels?: Readonly<Record<string, string>> | undefined;
  matchExpressions?:
    | readonly {
        key: string;
        operator: "In" | "NotIn" | "Exists" | "DoesNotExist";
        values?: readonly string[] | undefined;
      }[]
    | undefined;
}

/** A structured selector's requirements: each label its value, each expression its operator. */
export function requirementsOf(s: StructuredLabelSelector): LabelRequirement[] {
  return [
    ...Object.entries(s.matchLabels ?? {}).map(([key, value]): LabelRequirement => ({ key, op: "=", value })),
    ...(s.matchExpressions ?? []).map((e): LabelRequirement => {
      if (e.operator === "Exists") return { key: e.key, op: "exists" };
      if (e.operator === "DoesNotExist") return { key: e.key, op: "!exists" };
      return { key: e.key, op: e.operator === "In" ? "in" : "notin", values: [...(e.values ?? [])] };
    }),
  ];
}
