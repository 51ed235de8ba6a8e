import { z } from "zod";
import { MERGE_METHODS, type MergeMethod } from "../api/merge-method.js";
import { refNameProblem } from "../lifecycle/git-ref.js";
import { DEFAULT_CHANNEL_NAMES } from "./resolve.js";
import { RolloutSchema } from "./rollout-schema.js";

/**
 * The schema of `.github/porchlight.yml`: the single source of truth for parsing, for the defaults step
 * and for the JSON Schema that editors use (schema/porchlight.schema.json is generated from it).
 *
 * Every field is optional: a file holds only what it changes, and an organisation's `.github` repository
 * can hold defaults for all of its repositories (see resolve.ts).
 */

/** Where a function may run. `builtin` runs in-process; `exec` and `container` run code from outside. */
export const RUNTIMES = ["builtin", "exec", "container"] as const;
export type Runtime = (typeof RUNTIMES)[number];

export type { MergeMethod };

const VERSIONING_SCHEMES = ["integer"] as const;
export type VersioningScheme = (typeof VERSIONING_SCHEMES)[number];

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

const channelName = z
  .string()
  .max(63)
  .regex(DNS_LABEL, "a channel name uses lowercase letters, digits and '-' (like `stable` or `beta`)");

const relativeDir = z
  .string()
  .min(1)
  .refine((p) => !p.startsWith("/"), "must be a path relative to the repository root")
  .refine((p) => !p.split("/").includes(".."), "must stay inside the repository (no `..`)");

const branchName = z.string().superRefine((b, ctx) => {
  const problem = refNameProblem(b);
  if (problem) ctx.addIssue({ code: "custom", message: `is not a valid git branch name: it ${problem}` });
});

const GuardrailSchema = z
  .strictObject({
    name: z.string().min(1).optional().describe("A name for the check run annotations; default: the image."),
    image: z
      .string()
      .min(1)
      .describe(
        "The validator function image, as in a Kptfile pipeline (e.g. ghcr.io/kptdev/krm-functions-catalog/kubeconform:v0.1).",
      ),
    configMap: z
      .record(z.string(), z.string())
      .optional()
      .describe("Inline function config, as a Kptfile `configMap`."),
    configPath: relativeDir
      .optional()
      .describe(
        "A function config file, relative to the repository root (a Kptfile uses a package-relative path).",
      ),
    packages: z
      .array(z.string().min(1))
      .min(1)
      .optional()
      .describe("Glob patterns of package paths this validator applies to; default: every package."),
  })
  .refine((g) => !(g.configMap && g.configPath), {
    message: "set either `configMap` or `configPath`, not both",
    path: ["configPath"],
  });
export type Guardrail = z.infer<typeof GuardrailSchema>;

const ChannelsSchema = z
  .strictObject({
    names: z
      .array(channelName)
      .min(1)
      .optional()
      .describe("The channels packages are published into; default: [stable, beta]."),
    default: channelName
      .optional()
      .describe("The channel a newly published revision joins; default: stable. Must be one of `names`."),
  })
  .superRefine((c, ctx) => {
    if (c.default === undefined || !Array.isArray(c.names ?? [])) return;
    const names = c.names ?? DEFAULT_CHANNEL_NAMES;
    if (names.length === 0 || names.includes(c.default)) return;
    const listed = names.map((n) => `\`${n}\``).join(", ");
    ctx.addIssue({
      code: "custom",
      path: ["default"],
      input: c.default,
      message: c.names
        ? `must be one of the channels in \`names\` (${listed}), not ${JSON.stringify(c.default)}; pick one of them, or add ${JSON.stringify(c.default)} to \`names\``
        : `must be one of the channels (${listed}, the default \`names\`), not ${JSON.stringify(c.default)}; pick one of them, or set \`names\` to list ${JSON.stringify(c.default)}`,
    });
  });

const limit = (what: string, operatorDefault: string) =>
  z
    .number()
    .int()
    .min(1)
    .optional()
    .describe(
      `The most ${what} one package may hold; porchlight fails its check past it. It can only lower the app's limit (${operatorDefault} unless the operator changed it).`,
    );

const LimitsSchema = z
  .strictObject({
    packageFiles: limit("files", "10,000"),
    packageBytes: limit("bytes", "8 MiB"),
    packageResources: limit("resources (YAML documents; Kptfiles are not counted)", "10,000"),
  })
  .describe("Lower limits for this repository's packages than the app's own.");

const FunctionsSchema = z.strictObject({
  runtimes: z
    .array(z.enum(RUNTIMES))
    .optional()
    .describe(
      "The function runtimes this repository allows. It can only narrow what the app's operator allows: exec and container stay off unless the operator enables them.",
    ),
});

const VersioningSchema = z.strictObject({
  scheme: z
    .enum(VERSIONING_SCHEMES)
    .optional()
    .describe("How revisions are numbered: `integer` tags a package's revisions v1, v2, v3, …"),
});

const OCI_REPOSITORY = /^(?:oci:\/\/)?[^/\s]+(?:\/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)+$/;

const PublishSchema = z
  .strictObject({
    oci: z
      .strictObject({
        repository: z
          .string()
          .regex(
            OCI_REPOSITORY,
            "must be REGISTRY/PATH (like `ghcr.io/acme/packages`): a registry host, then lowercase path segments",
          )
          .describe(
            "Where each published revision is mirrored: `<repository>/<package>:v<N>` (e.g. `ghcr.io/acme/packages` gives `ghcr.io/acme/packages/basens:v3`). The app's operator provides the credentials (docs/sources.md).",
          ),
      })
      .optional()
      .describe(
        "Mirror every published revision to an OCI registry as an artifact with one tar+gzip layer, so Flux's OCIRepository and Argo CD can consume it.",
      ),
  })
  .describe("What publishing does besides the merge and the tag.");

/** The file as written: everything optional, unknown fields rejected so a typo is caught. */
export const RepoConfigFileSchema = z
  .strictObject({
    baseBranch: branchName
      .optional()
      .describe(
        "The branch proposals merge into and drafts start from; default: the repository's default branch.",
      ),
    packageRoot: relativeDir
      .optional()
      .describe("The directory holding the packages, relative to the repository root; default: `.`."),
    deployment: z
      .boolean()
      .optional()
      .describe(
        "Whether this repository holds deployable packages (Porch's deployment repository); default: false.",
      ),
    requiredApprovals: z
      .number()
      .int()
      .min(0)
      .max(10)
      .optional()
      .describe("Approving reviews needed before a proposal is published; default: 1."),
    mergeMethod: z
      .enum(MERGE_METHODS)
      .optional()
      .describe("How a proposal is merged on publish; default: merge."),
    guardrails: z
      .array(GuardrailSchema)
      .optional()
      .describe("Validator functions run on every proposal, as the `porchlight/guardrails` check."),
    channels: ChannelsSchema.optional(),
    functions: FunctionsSchema.optional(),
    versioning: VersioningSchema.optional(),
    limits: LimitsSchema.optional(),
    publish: PublishSchema.optional(),
    registries: z
      .record(
        z.string().regex(/^[^/\s]+$/, "must be a registry host such as ghcr.io or localhost:5000"),
        z.string().min(1, "must name one of the app operator's registry credentials"),
      )
      .optional()
      .describe(
        "Which of the app operator's named registry credentials the bot uses for each registry host (for publish.oci and OCI upstreams of variants), e.g. `ghcr.io: acme-ghcr`; the operator decides which repositories may use which (docs/sources.md).",
      ),
    rollout: RolloutSchema.optional(),
  })
  .describe("porchlight configuration for one repository (.github/porchlight.yml)");

export type RepoConfigFile = z.infer<typeof RepoConfigFileSchema>;
