import { z } from "zod";
import { parseSource, SourceRefError, sourceKind } from "../kpt/source-ref.js";
import { workspaceProblem } from "../lifecycle/workspace.js";
import { pipelineSchema } from "./kptfile-function.js";

/** apiVersion and kind of a PackageVariant, as Porch spells them. */
export const PACKAGE_VARIANT_API_VERSION = "config.porch.kpt.dev/v1alpha1";
export const PACKAGE_VARIANT_KIND = "PackageVariant";

/** A Kubernetes DNS label: what a variant name must be, since it appears in branch and function names. */
export const dnsLabel = z
  .string()
  .max(63, "must be at most 63 characters")
  .regex(
    /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/,
    "must be a DNS label: lowercase letters, digits and '-', starting and ending with a letter or digit",
  );

/** What `revision: -1`, Porch's placeholder revision (the registered branch's head), reads as until the upstream is built. */
const PLACEHOLDER_REVISION = "-1";

/**
 * A published revision, `v3`; a bare number is read as `v<number>`. Porch's `revision` is an int whose 0
 * means none given (Go's zero value, omitted from its JSON) and whose -1 is its placeholder revision, the
 * registered branch's head: 0 is read as absent, -1 as the latest published revision (gitUpstreamSchema).
 */
const revisionSchema = z
  .union([
    z.string(),
    z
      .number()
      .int("must be a published revision such as v3 (or Porch's number 3)")
      .min(
        -1,
        "must be a published revision such as v3 (or Porch's number 3; -1, Porch's placeholder, for the latest)",
      ),
  ])
  .transform((r) =>
    r === 0 ? undefined : r === -1 ? PLACEHOLDER_REVISION : typeof r === "number" ? `v${r}` : r,
  )
  .pipe(
    z
      .union([
        z.literal(PLACEHOLDER_REVISION),
        z.string().regex(/^v[1-9][0-9]*$/, "must be a published revision such as v3"),
      ])
      .optional(),
  );

/** A package path inside a repository: relative, slash-separated, no `.` or `..` segments. */
export const packagePathSchema = z
  .string()
  .min(1, "must not be empty")
  .refine(
    (p) =>
      !p.startsWith("/") &&
      !p.endsWith("/") &&
      p.split("/").every((s) => s !== "" && s !== "." && s !== ".."),
    {
      message: "must be a relative package path such as apps/basens (no leading '/', no '.' or '..')",
    },
  );

export const repositoryNameSchema = z
  .string()
  .min(1, "must not be empty")
  .regex(/^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)?$/, "must be a repository name, `name` or `owner/name`");

/**
 * Porch's messages name the field they are about, `spec.adoptionPolicy field can only be …`: `{field}` in
 * a message here is replaced by the field's path where the problem is reported (parse.ts issueMessage).
 */
const adoptionPolicySchema = z.enum(["adoptExisting", "adoptNone"], {
  message: '{field} field can only be "adoptNone" or "adoptExisting"',
});
const deletionPolicySchema = z.enum(["delete", "orphan"], {
  message: '{field} can only be "orphan" or "delete"',
});

/** Porch reserves these package-context keys for kpt itself. */
const RESERVED_CONTEXT_KEYS = ["name", "package-path"] as const;

/**
 * Porch's upstream: a package and which of its revisions — the one published from workspace
 * `workspaceName`, the one numbered `revision`, or with neither the latest published (as Porch takes its
 * registered branch, which publishing brings to the latest) — or, porchlight's addition, the head of a
 * catalog channel. `workspaceName` and `revision` may both be given (Porch reads the workspace): they must
 * then name the same revision, which fan-out checks against the upstream.
 */
const gitUpstreamSchema = z
  .strictObject({
    repo: repositoryNameSchema,
    package: packagePathSchema,
    revision: revisionSchema.optional(),
    workspaceName: z
      .string()
      .superRefine((w, ctx) => {
        const problem = workspaceProblem(w);
        if (problem) ctx.addIssue({ code: "custom", message: problem });
      })
      .optional(),
    /** porchlight's addition: follow the head of a catalog channel instead of a fixed revision. */
    channel: z.string().min(1).optional(),
  })
  .superRefine((u, ctx) => {
    if (u.channel === undefined) return;
    for (const field of ["revision", "workspaceName"] as const)
      if (u[field] !== undefined)
        ctx.addIssue({
          code: "custom",
          path: ["channel"],
          message: `set channel (follow a catalog channel) or ${field} (a fixed revision), not both`,
        });
  })
  // Porch's placeholder names no published revision: the latest, as an upstream naming none. It stays
  // marked, as a set must name a revision and the placeholder is one there.
  .transform(({ revision, ...u }): typeof u & { revision?: string; placeholder?: true } =>
    revision === PLACEHOLDER_REVISION
      ? { ...u, placeholder: true }
      : { ...u, ...(revision !== undefined ? { revision } : {}) },
  );

/** `oci://REGISTRY/REPO[//DIR]:TAG` or `…@sha256:HEX`, as `pkg get` takes it. */
const ociReferenceSchema = z.string().superRefine((s, ctx) => {
  const fail = (message: string) => ctx.addIssue({ code: "custom", message });
  if (sourceKind(s) === "https") {
    fail(`"${s}" is a tarball URL, not an OCI reference: write it as upstream: {tarball: ${s}}`);
    return;
  }
  if (!s.startsWith("oci://")) {
    fail(
      `"${s}" is not an OCI reference: write oci://REGISTRY/REPO[//DIR]:TAG or oci://REGISTRY/REPO[//DIR]@sha256:…`,
    );
    return;
  }
  try {
    parseSource(s, "oci");
  } catch (e) {
    if (e instanceof SourceRefError) fail(e.message.replace(/^oci: /, ""));
    else throw e;
  }
});

/**
 * porchlight's addition: an OCI image (or artifact) as the upstream. A tag floats: fan-out resolves it to
 * a digest on every run and updates the downstream when the digest changes; a digest pins it.
 */
const ociUpstreamSchema = z.strictObject({ oci: ociReferenceSchema });

/** `https://HOST/PATH.tar.gz[//DIR][#sha256=HEX]` (also `.tgz`, `.tar`), as `pkg get` takes it. */
const tarballReferenceSchema = z.string().superRefine((s, ctx) => {
  const fail = (message: string) => ctx.addIssue({ code: "custom", message });
  if (sourceKind(s) === "oci") {
    fail(`"${s}" is an OCI reference, not a tarball URL: write it as upstream: {oci: ${s}}`);
    return;
  }
  if (sourceKind(s) !== "https") {
    fail(
      `"${s}" is not a tarball URL: write https://HOST/PATH.tar.gz (or .tgz, .tar), optionally //DIR and #sha256=<hex> to pin its content`,
    );
    return;
  }
  try {
    parseSource(s, "tarball");
  } catch (e) {
    if (e instanceof SourceRefError) fail(e.message.replace(/^tarball: /, ""));
    else throw e;
  }
});

/**
 * porchlight's addition: a tarball over https as the upstream. Pinned (`#sha256=`) it never changes;
 * unpinned, fan-out checks it on every run (a conditional request) and updates the downstream when the
 * sha256 of its bytes changes.
 */
const tarballUpstreamSchema = z.strictObject({ tarball: tarballReferenceSchema });

/** Porch's git form, `{oci: oci://…}` or `{tarball: https://…}`. */
export const upstreamSchema = z.union([gitUpstreamSchema, ociUpstreamSchema, tarballUpstreamSchema]);

const downstreamSchema = z.strictObject({
  repo: repositoryNameSchema,
  package: packagePathSchema,
});

const stringMap = z.record(z.string(), z.string());

const packageContextSchema = z
  .strictObject({
    data: stringMap.optional(),
    removeKeys: z.array(z.string().min(1)).optional(),
  })
  .superRefine((pc, ctx) => {
    // As Porch words it (field.Invalid): the field, the whole value as JSON, then what is wrong.
    for (const key of RESERVED_CONTEXT_KEYS) {
      if (pc.data && key in pc.data) {
        ctx.addIssue({
          code: "custom",
          path: ["data"],
          message: `{field}: Invalid value: ${goJson(pc.data)}: must not contain the key "${key}"`,
        });
      }
      if (pc.removeKeys?.includes(key))
        ctx.addIssue({
          code: "custom",
          path: ["removeKeys"],
          message: `{field}: Invalid value: ${goJson(pc.removeKeys)}: must not contain the key "${key}"`,
        });
    }
  });

/** A value as Go's encoding/json writes it: a map's keys sorted. */
function goJson(v: Record<string, string> | readonly string[]): string {
  return Array.isArray(v)
    ? JSON.stringify(v)
    : JSON.stringify(Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))));
}

const injectionSelectorSchema = z.strictObject({
  group: z.string().optional(),
  version: z.string().optional(),
  kind: z.string().optional(),
  name: z.string().min(1, "{field} must not be empty"),
});

const packageVariantSpecSchema = z.strictObject({
  upstream: upstreamSchema,
  downstream: downstreamSchema,
  adoptionPolicy: adoptionPolicySchema.default("adoptNone"),
  deletionPolicy: deletionPolicySchema.default("delete"),
  labels: stringMap.optional(),
  annotations: stringMap.optional(),
  packageContext: packageContextSchema.optional(),
  pipeline: pipelineSchema.optional(),
  injectors: z.array(injectionSelectorSchema).optional(),
  /** porchlight's addition: a paused variant is left alone by fan-out. */
  paused: z.boolean().default(false),
});

export const objectMetaSchema = z
  .object({
    name: dnsLabel,
    namespace: z.string().optional(),
    labels: stringMap.optional(),
    annotations: stringMap.optional(),
  })
  .passthrough();

export const packageVariantSchema = z.strictObject({
  apiVersion: z.literal(PACKAGE_VARIANT_API_VERSION),
  kind: z.literal(PACKAGE_VARIANT_KIND),
  metadata: objectMetaSchema,
  spec: packageVariantSpecSchema,
  status: z.unknown().optional(),
});

export type PackageVariant = z.infer<typeof packageVariantSchema>;
export type PackageVariantInput = z.input<typeof packageVariantSchema>;
export type Upstream = z.infer<typeof upstreamSchema>;
export type GitUpstream = z.infer<typeof gitUpstreamSchema>;
type OciUpstream = z.infer<typeof ociUpstreamSchema>;
type TarballUpstream = z.infer<typeof tarballUpstreamSchema>;
/** An upstream that is not a git package: an OCI image or a tarball, followed by the digest of its content. */
export type SourceUpstream = OciUpstream | TarballUpstream;

/** True for an upstream naming an OCI image or a tarball rather than a git package. */
export function isSourceUpstream(u: Upstream): u is SourceUpstream {
  return "oci" in u || "tarball" in u;
}
export type InjectionSelector = z.infer<typeof injectionSelectorSchema>;
export type DeletionPolicy = z.infer<typeof deletionPolicySchema>;
