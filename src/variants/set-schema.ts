import { z } from "zod";
import { kptFunctionSchema } from "./kptfile-function.js";
import { labelSelectorFields } from "./label-selector.js";
import {
  dnsLabel,
  isSourceUpstream,
  objectMetaSchema,
  packagePathSchema,
  repositoryNameSchema,
  upstreamSchema,
} from "./schema.js";

export const PACKAGE_VARIANT_SET_API_VERSION = "config.porch.kpt.dev/v1alpha2";
export const PACKAGE_VARIANT_SET_KIND = "PackageVariantSet";

const stringMap = z.record(z.string(), z.string());

/** A refinement run even where the fields it reads have problems of their own. */
const ALWAYS = { when: () => true };

/** A computed map entry: a plain key or value, or an expression for it (only one of each). */
const mapExprSchema = z
  .strictObject({
    key: z.string().optional(),
    value: z.string().optional(),
    keyExpr: z.string().optional(),
    valueExpr: z.string().optional(),
  })
  .superRefine((m, ctx) => {
    if (m.key !== undefined && m.keyExpr !== undefined)
      ctx.addIssue({
        code: "custom",
        path: [],
        message: "{field} may specify only one of `key` and `keyExpr`",
      });
    if (m.value !== undefined && m.valueExpr !== undefined)
      ctx.addIssue({
        code: "custom",
        path: [],
        message: "{field} may specify only one of `value` and `valueExpr`",
      });
    if (m.key === undefined && m.keyExpr === undefined)
      ctx.addIssue({ code: "custom", path: [], message: "{field} must specify either `key` or `keyExpr`" });
    if (m.value === undefined && m.valueExpr === undefined)
      ctx.addIssue({
        code: "custom",
        path: [],
        message: "{field} must specify either `value` or `valueExpr`",
      });
  });

const repositoryTargetSchema = z.strictObject({
  name: z.string().min(1, "{field} cannot be empty").pipe(repositoryNameSchema),
  packageNames: z.array(z.string().min(1, "{field} cannot be empty").pipe(packagePathSchema)).optional(),
});

/**
 * Porch's Kubernetes label selector over Repository objects — here the registrations' `metadata.labels`
 * (`repo register --labels`) — and porchlight's additions for GitHub: `names` (globs, any may match),
 * `excludeNames` and `topics` (all must be present). Every criterion given must hold; an empty selector
 * selects every repository of the installation, as an empty label selector selects every object.
 */
const repositorySelectorSchema = z.strictObject({
  names: z.array(z.string().min(1)).optional(),
  topics: z.array(z.string().min(1)).optional(),
  excludeNames: z.array(z.string().min(1)).optional(),
  ...labelSelectorFields,
});

/**
 * Porch's selector of arbitrary objects, one downstream each (named after the object): its apiVersion and
 * kind, optionally its name, and a label selector. porchlight reads the objects from the management
 * repository (src/variants/objects.ts).
 */
const objectSelectorSchema = z.strictObject({
  apiVersion: z.string().min(1, "cannot be empty"),
  kind: z.string().min(1, "cannot be empty"),
  name: z.string().min(1).optional(),
  ...labelSelectorFields,
});

const downstreamTemplateSchema = z.strictObject({
  repo: repositoryNameSchema.optional(),
  package: packagePathSchema.optional(),
  repoExpr: z.string().optional(),
  packageExpr: z.string().optional(),
});

const functionTemplateSchema = z.intersection(
  kptFunctionSchema,
  z.object({ configMapExprs: z.array(mapExprSchema).optional() }),
);

const injectionSelectorTemplateSchema = z
  .strictObject({
    group: z.string().optional(),
    version: z.string().optional(),
    kind: z.string().optional(),
    name: z.string().min(1).optional(),
    nameExpr: z.string().optional(),
  })
  .superRefine((i, ctx) => {
    if (i.name !== undefined && i.nameExpr !== undefined)
      ctx.addIssue({
        code: "custom",
        path: [],
        message: "{field} may specify only one of `name` and `nameExpr`",
      });
    if (i.name === undefined && i.nameExpr === undefined)
      ctx.addIssue({ code: "custom", path: [], message: "{field} must specify either `name` or `nameExpr`" });
  });

/** A template's policies, in the words of Porch's set controller (no "field" after adoptionPolicy there). */
const templateAdoptionPolicy = z.enum(["adoptExisting", "adoptNone"], {
  message: '{field} can only be "adoptNone" or "adoptExisting"',
});
const templateDeletionPolicy = z.enum(["delete", "orphan"], {
  message: '{field} can only be "orphan" or "delete"',
});

const packageVariantTemplateObject = z.strictObject({
  downstream: downstreamTemplateSchema.optional(),
  adoptionPolicy: templateAdoptionPolicy.optional(),
  deletionPolicy: templateDeletionPolicy.optional(),
  labels: stringMap.optional(),
  labelExprs: z.array(mapExprSchema).optional(),
  annotations: stringMap.optional(),
  annotationExprs: z.array(mapExprSchema).optional(),
  packageContext: z
    .strictObject({
      data: stringMap.optional(),
      removeKeys: z.array(z.string()).optional(),
      dataExprs: z.array(mapExprSchema).optional(),
      removeKeyExprs: z.array(z.string()).optional(),
    })
    .optional(),
  pipeline: z
    .strictObject({
      validators: z.array(functionTemplateSchema).optional(),
      mutators: z.array(functionTemplateSchema).optional(),
    })
    .optional(),
  injectors: z.array(injectionSelectorTemplateSchema).optional(),
  paused: z.boolean().optional(),
});

/** The template, with Porch's checks of the downstream's values against its expressions (reported at the template). */
const packageVariantTemplateSchema = packageVariantTemplateObject.superRefine((t, ctx) => {
  const d = t.downstream;
  if (d?.repo !== undefined && d.repoExpr !== undefined)
    ctx.addIssue({
      code: "custom",
      path: [],
      message: "{field} may specify only one of `downstream.repo` and `downstream.repoExpr`",
    });
  if (d?.package !== undefined && d.packageExpr !== undefined)
    ctx.addIssue({
      code: "custom",
      path: [],
      message: "{field} may specify only one of `downstream.package` and `downstream.packageExpr`",
    });
}, ALWAYS);

const targetSchema = z
  .strictObject({
    repositories: z.array(repositoryTargetSchema).optional(),
    repositorySelector: repositorySelectorSchema.optional(),
    objectSelector: objectSelectorSchema.optional(),
    template: packageVariantTemplateSchema.optional(),
  })
  .superRefine((t, ctx) => {
    const count = [t.repositories, t.repositorySelector, t.objectSelector].filter(
      (x) => x !== undefined,
    ).length;
    if (count !== 1)
      ctx.addIssue({
        code: "custom",
        path: [],
        message: "{field} must specify one of `repositories`, `repositorySelector`, or `objectSelector`",
      });
    if (t.repositories && t.repositories.length === 0)
      ctx.addIssue({
        code: "custom",
        path: ["repositories"],
        message: "{field} must not be an empty list if specified",
      });
    // Checked whatever else is wrong in the target, as Porch lists every problem.
  }, ALWAYS);

const packageVariantSetSpecSchema = z
  .strictObject({
    upstream: upstreamSchema,
    targets: z.array(targetSchema).min(1, "must specify at least one item in spec.targets"),
    paused: z.boolean().default(false),
  })
  .superRefine((s, ctx) => {
    // Porch's set, unlike its variant, names the upstream's revision (its placeholder, -1, is one):
    // porchlight's channel does too.
    const u = s.upstream;
    if (
      !isSourceUpstream(u) &&
      u.revision === undefined &&
      !u.placeholder &&
      u.workspaceName === undefined &&
      u.channel === undefined
    )
      ctx.addIssue({
        code: "custom",
        path: ["upstream"],
        message: "either spec.upstream.revision or spec.upstream.workspaceName must be specified",
      });
  });

export const packageVariantSetSchema = z.strictObject({
  apiVersion: z.literal(PACKAGE_VARIANT_SET_API_VERSION),
  kind: z.literal(PACKAGE_VARIANT_SET_KIND),
  metadata: objectMetaSchema.extend({ name: dnsLabel }),
  spec: packageVariantSetSpecSchema,
  status: z.unknown().optional(),
});

export type PackageVariantSet = z.infer<typeof packageVariantSetSchema>;
export type PackageVariantTemplate = z.infer<typeof packageVariantTemplateSchema>;
export type MapExpr = z.infer<typeof mapExprSchema>;
export type RepositorySelector = z.infer<typeof repositorySelectorSchema>;
