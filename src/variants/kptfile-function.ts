import { z } from "zod";

/**
 * A Kptfile pipeline function, as in kpt's `kptfile/v1` Function: what a PackageVariant prepends to the
 * downstream pipeline. Kept open to fields kpt may add (`passthrough`), since the Kptfile owns this shape.
 */
export const kptFunctionSchema = z
  .object({
    image: z.string().min(1).optional(),
    exec: z.string().min(1).optional(),
    name: z
      .string()
      .refine((n) => !n.includes("."), {
        // Porch's words; the functions a variant adds are named PackageVariant.<variant>.<name>.<index>.
        message: "{field} must not contain '.'",
      })
      .optional(),
    configPath: z.string().optional(),
    configMap: z.record(z.string(), z.string()).optional(),
    selectors: z.array(z.record(z.string(), z.unknown())).optional(),
    exclude: z.array(z.record(z.string(), z.unknown())).optional(),
  })
  .passthrough()
  .refine((f) => f.image !== undefined || f.exec !== undefined, {
    message: "{field} must not be empty",
    path: ["image"],
  });

export type KptFunction = z.infer<typeof kptFunctionSchema>;

export const pipelineSchema = z.strictObject({
  mutators: z.array(kptFunctionSchema).optional(),
  validators: z.array(kptFunctionSchema).optional(),
});
