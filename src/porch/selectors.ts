import { SelectorError } from "../api/label-selector.js";

/**
 * Kubernetes' field selectors, as `kubectl get --field-selector` takes them and Porch's API server reads
 * them: `f=v`, `f==v`, `f!=v`, comma-joined, `\` escaping a `,`, `=` or `\` in a value. Parsing is pure;
 * what a field means is the caller's (rpkg get's PackageRevisions). Label selectors are read by
 * src/api/label-selector.ts.
 */

export interface FieldRequirement {
  field: string;
  op: "=" | "!=";
  value: string;
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
