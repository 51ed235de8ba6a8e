/**
 * Kubernetes label selector strings (`app=web,tier!=db,env in (a,b),!legacy`), as kustomize's
 * `labelSelector` and `annotationSelector` take them, parsed once and matched against a string map.
 */

type Requirement =
  | { op: "exists" | "notexists"; key: string }
  | { op: "in" | "notin"; key: string; values: string[] }
  | { op: "gt" | "lt"; key: string; value: number };

export interface LabelSelector {
  matches(labels: Record<string, string>): boolean;
}

export class LabelSelectorError extends Error {}

/** Parses a selector; "" selects everything. Throws LabelSelectorError naming the bad requirement. */
export function parseLabelSelector(text: string): LabelSelector {
  const requirements = splitRequirements(text)
    .map((r) => r.trim())
    .filter((r) => r !== "")
    .map(parseRequirement);
  return { matches: (labels) => requirements.every((r) => matchesRequirement(r, labels)) };
}

/** Splits on commas outside parentheses. */
function splitRequirements(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === "(") depth++;
    else if (ch === ")") depth--;
    else if (ch === "," && depth === 0) {
      out.push(text.slice(start, i));
      start = i + 1;
    }
  }
  out.push(text.slice(start));
  return out;
}

const KEY = "[A-Za-z0-9]([-A-Za-z0-9_./]*[A-Za-z0-9])?";
const VALUE = "([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?";

function parseRequirement(text: string): Requirement {
  let m = new RegExp(`^!\\s*(${KEY})$`).exec(text);
  // group 1, the key: not optional
  if (m) return { op: "notexists", key: m[1]! };
  m = new RegExp(`^(${KEY})$`).exec(text);
  // group 1, the key: not optional
  if (m) return { op: "exists", key: m[1]! };
  m = new RegExp(`^(${KEY})\\s*(==|=|!=)\\s*(${VALUE})$`).exec(text);
  if (m) {
    const value = m[4] ?? "";
    // group 1, the key: not optional
    return { op: m[3] === "!=" ? "notin" : "in", key: m[1]!, values: [value] };
  }
  m = new RegExp(`^(${KEY})\\s+(in|notin)\\s*\\(([^)]*)\\)$`).exec(text);
  if (m) {
    const values = (m[4] ?? "").split(",").map((v) => v.trim());
    if (values.some((v) => !new RegExp(`^${VALUE}$`).test(v))) {
      throw new LabelSelectorError(`invalid label value in selector requirement "${text}"`);
    }
    // group 1, the key: not optional
    return { op: m[3] === "in" ? "in" : "notin", key: m[1]!, values };
  }
  m = new RegExp(`^(${KEY})\\s*(<|>)\\s*(-?[0-9]+)$`).exec(text);
  // group 1, the key: not optional
  if (m) return { op: m[3] === ">" ? "gt" : "lt", key: m[1]!, value: Number(m[4]) };
  throw new LabelSelectorError(`unable to parse selector requirement "${text}"`);
}

function matchesRequirement(r: Requirement, labels: Record<string, string>): boolean {
  const has = Object.hasOwn(labels, r.key);
  const value = labels[r.key];
  switch (r.op) {
    case "exists":
      return has;
    case "notexists":
      return !has;
    case "in":
      return has && r.values.includes(value ?? "");
    case "notin":
      return !has || !r.values.includes(value ?? "");
    case "gt":
    case "lt": {
      if (!has || !/^-?[0-9]+$/.test(value ?? "")) return false;
      const n = Number(value);
      return r.op === "gt" ? n > r.value : n < r.value;
    }
  }
}
