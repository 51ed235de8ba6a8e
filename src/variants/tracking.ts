import { createHash } from "node:crypto";
import type { PackageVariant } from "./schema.js";

/**
 * Annotations porchlight keeps on a downstream Kptfile's metadata. Porch tracks ownership with owner
 * references on PackageRevision objects; with git as the only source of truth they live in the package.
 */
export const MANAGED_BY_ANNOTATION = "porchlight.dev/package-variant";
/** The deletion policy of the variant that manages the package, so it still applies once the variant is gone. */
export const DELETION_POLICY_ANNOTATION = "porchlight.dev/deletion-policy";
/** A digest of the mutations last applied, so a changed variant is noticed without reading the package. */
export const SPEC_HASH_ANNOTATION = "porchlight.dev/variant-spec-hash";

/**
 * A digest of what a variant does to its downstream besides choosing the upstream revision: package
 * context, pipeline, injectors, and its name (which names the functions). Labels and annotations are left
 * out: as in Porch they apply only when the downstream is created.
 */
export function variantSpecHash(variant: PackageVariant): string {
  const { packageContext, pipeline, injectors } = variant.spec;
  const canonical = stableJson({ name: variant.metadata.name, packageContext, pipeline, injectors });
  return createHash("sha256").update(canonical).digest("hex").slice(0, 16);
}

function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value ?? null);
}
