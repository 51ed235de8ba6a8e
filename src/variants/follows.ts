import type { VariantFile } from "./load.js";
import { parseVariantFile } from "./parse.js";
import { isSourceUpstream, type Upstream } from "./schema.js";

/** A revision just published: its repository (`owner/name`) and package path. */
export interface PublishedPackage {
  repo: string;
  package: string;
}

/**
 * Whether the variant files of a management repository may fan out a revision of `published`: some
 * PackageVariant or PackageVariantSet names it as its git upstream (its repository by short or full
 * name, or by default the management repository; the package, or one it holds or is held by), or some
 * document cannot be read (a variant fan-out cannot rule out). Read from the files alone, before any
 * repository is listed: false means no variant's downstream moves with this revision.
 */
export function variantsMayFollow(
  files: readonly VariantFile[],
  published: PublishedPackage,
  managementRepo: string,
): boolean {
  for (const file of files) {
    const parsed = parseVariantFile(file.path, file.text, { managementRepo });
    if (parsed.problems.some((p) => p.severity !== "warning")) return true;
    const upstreams = [
      ...parsed.variants.map((v) => v.variant.spec.upstream),
      ...parsed.sets.map((s) => s.set.spec.upstream),
    ];
    if (upstreams.some((u) => follows(u, published))) return true;
  }
  return false;
}

function follows(upstream: Upstream, published: PublishedPackage): boolean {
  if (isSourceUpstream(upstream)) return false;
  return sameRepository(upstream.repo, published.repo) && nested(upstream.package, published.package);
}

/** `name` or `owner/name` as variants write a repository, against a full name; case as GitHub ignores it. */
function sameRepository(written: string, fullName: string): boolean {
  const w = written.toLowerCase();
  const full = fullName.toLowerCase();
  return w.includes("/") ? w === full : w === full.slice(full.indexOf("/") + 1);
}

/** The same package, or one holding the other (a subpackage published on its own). */
function nested(a: string, b: string): boolean {
  const [x, y] = [a.replace(/\/+$/, ""), b.replace(/\/+$/, "")];
  return x === y || x.startsWith(`${y}/`) || y.startsWith(`${x}/`);
}
