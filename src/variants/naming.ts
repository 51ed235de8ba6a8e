import { createHash } from "node:crypto";

/** Longest name Porch gives a generated PackageVariant, and the length of the hash it then appends. */
const VARIANT_NAME_MAX_LENGTH = 63;
const HASH_LENGTH = 8;

/**
 * The name of the PackageVariant a set generates for one downstream, as Porch builds it:
 * `<set>-<repo>-<package>`, shortened with a hash of the full identifier when it is longer than 63
 * characters. porchlight also needs the name to be a DNS label (it appears in branch and function names),
 * so an identifier with other characters (`apps/basens`, `Acme`) is lowercased, cleaned, and hashed too,
 * which keeps two different identifiers from ever getting the same name. Deterministic. `keepOwner` keeps
 * the owner of an `owner/name` repository (then always hashed), for a repository a selector picked in
 * another account, which may share its name with one of the management repository's.
 */
export function packageVariantName(
  setName: string,
  downstreamRepo: string,
  downstreamPackage: string,
  options: { keepOwner?: boolean | undefined } = {},
): string {
  const repo =
    downstreamRepo.includes("/") && !options.keepOwner
      ? downstreamRepo.slice(downstreamRepo.indexOf("/") + 1)
      : downstreamRepo;
  const id = `${setName}-${repo}-${downstreamPackage}`;
  const clean = id
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, "-")
    .replace(/-+/g, "-")
    .replace(/^-|-$/g, "");
  if (clean === id && id.length <= VARIANT_NAME_MAX_LENGTH) return id;
  const hash = createHash("sha1").update(id).digest("hex").slice(0, HASH_LENGTH);
  const stub = clean.slice(0, VARIANT_NAME_MAX_LENGTH - HASH_LENGTH - 1).replace(/-+$/, "");
  return stub ? `${stub}-${hash}` : hash;
}
