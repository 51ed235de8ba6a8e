import type { z } from "zod";

const TYPE_NAMES: Record<string, string> = {
  string: "text",
  number: "a number",
  int: "a whole number",
  boolean: "true or false",
  array: "a list",
  object: "a map of fields",
  record: "a map of names to text",
};

/** zod's issue, rewritten for the person fixing the file. `value` is what the file holds at the path. */
export function issueMessage(issue: z.core.$ZodIssue, value: unknown, present: boolean): string {
  switch (issue.code) {
    case "invalid_type": {
      const expected = TYPE_NAMES[issue.expected] ?? issue.expected;
      if (!present) return `is missing (required: ${expected})`;
      return `must be ${expected}, not ${describeValue(value)}`;
    }
    case "invalid_value":
      return `must be one of ${issue.values.map((v) => String(v)).join(", ")}, not ${describeValue(value)}`;
    case "too_small":
      return sizeMessage("at least", issue.origin, Number(issue.minimum));
    case "too_big":
      return sizeMessage("at most", issue.origin, Number(issue.maximum));
    default:
      return issue.message;
  }
}

function sizeMessage(bound: string, origin: string, limit: number): string {
  if (origin === "string")
    return limit === 1 && bound === "at least"
      ? "cannot be empty"
      : `must be ${bound} ${limit} characters long`;
  if (origin === "array")
    return limit === 1 && bound === "at least"
      ? "cannot be an empty list"
      : `must have ${bound} ${limit} entries`;
  return `must be ${bound} ${limit}`;
}

export function describeValue(value: unknown): string {
  if (value === null) return "empty";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "a map";
  if (typeof value === "string") return JSON.stringify(value);
  return String(value);
}
