import { z } from "zod";
import type { FunctionResult } from "../api/resource-list.js";

/**
 * A function's `results`, read where they enter (a ResourceList on its stdout) as kpt reads them: yaml.v3
 * decodes them into kpt's ResultItem (api/fnresult/v1), so a number or boolean where text is wanted is
 * its text (`5` is "5"), a null or missing message is empty, a null object is no object, and unknown
 * fields go. What kpt's decoder refuses is refused here, naming the field: a list or mapping where text
 * is wanted, an index that is no whole number, an item that is no mapping. A severity other than the
 * three the function specification names is read as none, where kpt goes on with it too.
 */

/** yaml.v3's reading of a scalar into a Go string: its text. */
const text = z.preprocess(
  (v) => (typeof v === "number" || typeof v === "boolean" ? String(v) : v),
  z.string({ error: (issue) => `expected text, got ${described(issue.input)}` }),
);
/** A string field of a struct kpt decodes into (`omitempty`): absent when null or missing. */
const optionalText = text.nullish().transform((v) => v ?? undefined);

const SEVERITIES = ["error", "warning", "info"] as const;
/**
 * kpt takes any text as a severity and the render goes on; the check run has a level for the three the
 * function specification names only, so another one is read as none (as a result that names none).
 */
const severity = text.nullish().transform((v) => SEVERITIES.find((s) => s === v));

/** An object field kpt decodes into a pointer: absent when null or missing. */
const optionalObject = <T extends z.ZodType>(schema: T) => schema.nullish().transform((v) => v ?? undefined);

const resultItem = z.preprocess(
  // yaml.v3 decodes a null item as an empty result
  (v) => v ?? {},
  z.object(
    {
      message: text.nullish().transform((v) => v ?? ""),
      severity,
      resourceRef: optionalObject(
        z.object({
          apiVersion: optionalText,
          kind: optionalText,
          name: optionalText,
          namespace: optionalText,
        }),
      ),
      field: optionalObject(
        z.object({
          path: text.nullish().transform((v) => v ?? ""),
          currentValue: z.unknown().optional(),
          proposedValue: z.unknown().optional(),
        }),
      ),
      file: optionalObject(
        z.object({
          path: optionalText,
          index: z
            .number({ error: (issue) => `expected a whole number, got ${described(issue.input)}` })
            .int({ error: "expected a whole number" })
            .nullish()
            .transform((v) => v ?? undefined),
        }),
      ),
      tags: optionalObject(z.record(z.string(), text)),
    },
    { error: (issue) => `expected a mapping, got ${described(issue.input)}` },
  ),
);

const resultsSchema = z.array(resultItem);

/** Where a function's results do not read as kpt reads them: the field (`results[0].message`) and why. */
export interface ResultsProblem {
  path: (string | number)[];
  message: string;
}

/** The results of a ResourceList (its `results` as plain data), or the first problem in them. */
export function readFunctionResults(value: unknown): FunctionResult[] | ResultsProblem {
  const parsed = resultsSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  // zod reports at least one issue for a failed parse
  const issue = parsed.error.issues[0];
  return {
    path: ["results", ...(issue?.path ?? []).filter((k) => typeof k !== "symbol")],
    message: issue?.message ?? "not a list of results",
  };
}

function described(v: unknown): string {
  if (v === null || v === undefined) return "nothing";
  if (Array.isArray(v)) return "a list";
  if (typeof v === "object") return "a mapping";
  return JSON.stringify(v);
}
