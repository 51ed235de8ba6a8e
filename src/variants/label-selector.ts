import { z } from "zod";
import { labelsMatch, requirementsOf, type StructuredLabelSelector } from "../api/label-selector.js";

/**
 * A Kubernetes label selector (metav1.LabelSelector), as Porch's PackageVariantSet takes it in
 * `repositorySelector` and `objectSelector`: `matchLabels` (each key with that value) and
 * `matchExpressions` (`In`, `NotIn`, `Exists`, `DoesNotExist`), all of them required at once. An empty
 * selector selects everything, as in Kubernetes. The schema is PackageVariantSet's; the matching is
 * src/api/label-selector.ts's, the one reader of label selectors.
 */
const OPERATORS = ["In", "NotIn", "Exists", "DoesNotExist"] as const;

const labelSelectorRequirementSchema = z
  .strictObject({
    key: z.string().min(1, "must not be empty"),
    operator: z.enum(OPERATORS, { message: `must be one of ${OPERATORS.join(", ")}` }),
    values: z.array(z.string()).optional(),
  })
  .superRefine((r, ctx) => {
    // metav1.LabelSelectorAsSelector's rules, which Porch applies before it lists anything.
    if ((r.operator === "In" || r.operator === "NotIn") && !r.values?.length)
      ctx.addIssue({
        code: "custom",
        path: ["values"],
        message: `for 'in', 'notin' operators, values set can't be empty`,
      });
    if ((r.operator === "Exists" || r.operator === "DoesNotExist") && r.values?.length)
      ctx.addIssue({
        code: "custom",
        path: ["values"],
        message: `values set must be empty for exists and does not exist`,
      });
  });

/** The two fields of a label selector, to be spread into a selector's own schema. */
export const labelSelectorFields = {
  matchLabels: z.record(z.string(), z.string()).optional(),
  matchExpressions: z.array(labelSelectorRequirementSchema).optional(),
};

export type LabelSelector = StructuredLabelSelector;

/** Whether `labels` satisfy every requirement of the selector (an empty selector: always). */
export function matchesLabels(s: LabelSelector, labels: Readonly<Record<string, string>> = {}): boolean {
  return labelsMatch(requirementsOf(s), labels);
}
