import { z } from "zod";

/** The `schema:` value of a porchlight catalog file. */
export const CATALOG_SCHEMA = "porchlight.catalog/v1";
/** Where the catalog lives in the upstream repository. */
export const CATALOG_BRANCH = "porchlight/catalog";
export const CATALOG_FILE = "catalog.yaml";

const revisionName = z.string().regex(/^v[1-9][0-9]*$/, "must be a published revision such as v3");

/** A published revision of a package: the tag `<package>/<revision>` on `commit`, made at `time`. */
export const catalogRevisionSchema = z.strictObject({
  revision: revisionName,
  commit: z.string().regex(/^[0-9a-f]{7,64}$/, "must be a git commit SHA (hex)"),
  time: z.string().min(1, "must be the publish time, RFC 3339"),
});

/**
 * An entry of a channel, as operator-registry's `olm.channel` entries: `replaces` is the revision this one
 * upgrades from along the channel; `skips` are revisions whose downstreams jump straight here, and which are
 * no longer offered as an upgrade themselves.
 */
export const channelEntrySchema = z.strictObject({
  name: revisionName,
  replaces: revisionName.optional(),
  skips: z.array(revisionName).optional(),
  /**
   * A semver range (operator-registry's grammar): every revision in it may upgrade straight to this entry.
   * Revision `vN` is read as version N.0.0; the range is checked in `checkCatalog`, which names its field.
   */
  skipRange: z.string().optional(),
});

const catalogChannelSchema = z.strictObject({
  name: z.string().regex(/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/, "must be a channel name such as stable or beta"),
  entries: z.array(channelEntrySchema),
});

/** What a deprecation names, as operator-registry's `olm.deprecations` references: a revision, a channel or the package. */
const deprecationReferenceSchema = z.discriminatedUnion("schema", [
  z.strictObject({ schema: z.literal("olm.bundle"), name: revisionName }),
  z.strictObject({ schema: z.literal("olm.channel"), name: z.string().min(1) }),
  z.strictObject({ schema: z.literal("olm.package") }),
]);

/** One deprecation, as an `olm.deprecations` entry: still installable, but its users are told why not to. */
const deprecationSchema = z.strictObject({
  reference: deprecationReferenceSchema,
  message: z.string().trim().min(1, "must say why, and what to use instead"),
});

const catalogPackageSchema = z.strictObject({
  name: z.string().min(1),
  /**
   * The channel a downstream follows when it names none, as `olm.package`'s `defaultChannel`: required
   * once the package has a channel, and one of its channels.
   */
  defaultChannel: z.string().optional(),
  revisions: z.array(catalogRevisionSchema),
  channels: z.array(catalogChannelSchema).default([]),
  deprecations: z.array(deprecationSchema).optional(),
  /**
   * Revisions taken out of the catalog: their tags stay, the sweep never records them again, and a `skips`
   * may still name them so that downstreams left on one keep an upgrade path.
   */
  removed: z.array(revisionName).optional(),
});

export const catalogSchema = z.strictObject({
  schema: z.literal(CATALOG_SCHEMA),
  packages: z
    .array(catalogPackageSchema)
    .nullish()
    .transform((p) => p ?? []),
});

export type Catalog = z.infer<typeof catalogSchema>;
export type CatalogPackage = z.infer<typeof catalogPackageSchema>;
export type CatalogChannel = z.infer<typeof catalogChannelSchema>;
export type ChannelEntry = z.infer<typeof channelEntrySchema>;
export type Deprecation = z.infer<typeof deprecationSchema>;
export type DeprecationReference = z.infer<typeof deprecationReferenceSchema>;

/** The version a revision stands for in a `skipRange`: `v12` → 12.0.0. */
export function revisionVersion(revision: string): string {
  return `${revisionNumber(revision)}.0.0`;
}

/** The number of a revision, `v12` → 12, for ordering. */
export function revisionNumber(revision: string): number {
  return Number.parseInt(revision.slice(1), 10);
}
