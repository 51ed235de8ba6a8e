import { z } from "zod";

/**
 * The Kptfile, kpt.dev/v1, as kpt v1 decodes it: unknown fields are errors (kpt decodes strictly),
 * and the function rules kpt checks after decoding are refinements here.
 */

/** kpt (yaml.v3) decodes any scalar into a string field: `true` and `1` are the strings "true" and "1". */
const str = z.preprocess(
  (v) => (typeof v === "number" || typeof v === "boolean" ? String(v) : v),
  z.string(),
);
const stringMap = z.record(z.string(), str);

const selectorSchema = z.strictObject({
  apiVersion: str.optional(),
  kind: str.optional(),
  name: str.optional(),
  namespace: str.optional(),
  labels: stringMap.optional(),
  annotations: stringMap.optional(),
});

const kptFunctionSchema = z
  .strictObject({
    image: str.optional(),
    exec: str.optional(),
    configPath: str.optional(),
    configMap: stringMap.optional(),
    name: str.optional(),
    selectors: z.array(selectorSchema).optional(),
    exclude: z.array(selectorSchema).optional(),
  })
  .superRefine((fn, ctx) => {
    if (!fn.image && !fn.exec) {
      ctx.addIssue({ code: "custom", message: "must specify a functon (`image` or `exec`) to execute" });
    }
    if (fn.configPath !== undefined && fn.configMap !== undefined) {
      ctx.addIssue({
        code: "custom",
        message: "functionConfig must not specify both `configMap` and `configPath` at the same time",
      });
    }
    // kpt's reasons, word for word.
    if (fn.configPath !== undefined && (fn.configPath.startsWith("/") || fn.configPath.includes("\\"))) {
      ctx.addIssue({ code: "custom", path: ["configPath"], message: "path must be relative" });
    } else if (fn.configPath !== undefined && !isPackageLocalPath(fn.configPath)) {
      ctx.addIssue({ code: "custom", path: ["configPath"], message: "path must not be outside the package" });
    }
  });

/** A relative path that stays inside the package. */
function isPackageLocalPath(p: string): boolean {
  if (p === "" || p.startsWith("/") || p.includes("\\")) return false;
  return !p.split("/").includes("..");
}

const gitSchema = z.strictObject({
  repo: str.optional(),
  directory: str.optional(),
  ref: str.optional(),
});

const updateStrategySchema = z.enum(["resource-merge", "fast-forward", "force-delete-replace", "copy-merge"]);

const ociSchema = z.strictObject({ image: str.optional() });

const upstreamSchema = z.strictObject({
  type: z.enum(["git", "oci"]).optional(),
  git: gitSchema.optional(),
  oci: ociSchema.optional(),
  updateStrategy: updateStrategySchema.optional(),
});

const upstreamLockSchema = z.strictObject({
  type: z.enum(["git", "oci"]).optional(),
  git: gitSchema.extend({ commit: str.optional() }).optional(),
  oci: ociSchema.optional(),
});

export const kptfileSchema = z.strictObject({
  apiVersion: z.literal("kpt.dev/v1"),
  kind: z.literal("Kptfile"),
  metadata: z
    .object({
      name: str.optional(),
      namespace: str.optional(),
      labels: stringMap.optional(),
      annotations: stringMap.optional(),
    })
    .loose()
    .optional(),
  upstream: upstreamSchema.optional(),
  upstreamLock: upstreamLockSchema.optional(),
  info: z
    .strictObject({
      site: str.optional(),
      emails: z.array(str).optional(),
      license: str.optional(),
      licenseFile: str.optional(),
      description: str.optional(),
      keywords: z.array(str).optional(),
      man: str.optional(),
      readinessGates: z.array(z.strictObject({ conditionType: str })).optional(),
    })
    .optional(),
  pipeline: z
    .strictObject({
      mutators: z.array(kptFunctionSchema).nullish(),
      validators: z.array(kptFunctionSchema).nullish(),
    })
    .nullish(),
  inventory: z
    .strictObject({
      namespace: str.optional(),
      name: str.optional(),
      inventoryID: str.optional(),
      labels: stringMap.optional(),
      annotations: stringMap.optional(),
    })
    .optional(),
  status: z
    .strictObject({
      conditions: z
        .array(
          z.strictObject({
            type: str,
            status: str,
            reason: str.optional(),
            message: str.optional(),
          }),
        )
        .optional(),
    })
    .loose()
    .optional(),
});

export type Kptfile = z.infer<typeof kptfileSchema>;
export type KptFunction = z.infer<typeof kptFunctionSchema>;
export type Selector = z.infer<typeof selectorSchema>;
