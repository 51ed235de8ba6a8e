/**
 * The kpt functions catalog's releases, and how an image tag names one of them.
 *
 * Each list is the catalog's published versions of a function, oldest first, read from the git tags of
 * github.com/kptdev/krm-functions-catalog (`<name>/vX.Y.Z`, `go/<name>/vX.Y.Z`,
 * `functions/go/<name>/vX.Y.Z`, `functions/ts/<name>/vX.Y.Z`), and the ghcr.io/kptdev releases newer than
 * that history (apply-setters v0.2.2, set-annotations v0.1.5, search-replace v0.2.3: Porch's blueprints
 * and tests pin them; GHCR_ONLY). The catalog's registries also carry floating tags: `vX.Y` and `vX` point at the newest release of that line, `latest` (and `unstable`,
 * and no tag at all) at the newest release. A builtin declares which of these releases it reproduces;
 * the registry runs it only for those.
 */
export const CATALOG_RELEASES: Readonly<Record<string, readonly string[]>> = {
  "apply-replacements": ["v0.1.0", "v0.1.1", "v0.1.2"],
  "apply-setters": ["v0.1.0", "v0.1.1", "v0.2.0", "v0.2.1", "v0.2.2"],
  "ensure-name-substring": ["v0.1.0", "v0.1.1", "v0.2.0"],
  kubeval: ["v0.1.0", "v0.1.1", "v0.1.2", "v0.2.0", "v0.2.1", "v0.3.0"],
  "search-replace": ["v0.1.0", "v0.1.1", "v0.2.0", "v0.2.3"],
  "set-annotations": ["v0.1.3", "v0.1.4", "v0.1.5"],
  "set-image": ["v0.1.0", "v0.1.1"],
  "set-labels": ["v0.1.3", "v0.1.4", "v0.1.5", "v0.2.0", "v0.2.1"],
  "set-namespace": [
    "v0.1.0",
    "v0.1.1",
    "v0.1.2",
    "v0.1.3",
    "v0.1.4",
    "v0.2.0",
    "v0.3.0",
    "v0.3.1",
    "v0.3.2",
    "v0.3.3",
    "v0.3.4",
    "v0.4.0",
    "v0.4.1",
  ],
  starlark: [
    "v0.1.0",
    "v0.1.1",
    "v0.1.2",
    "v0.2.0",
    "v0.2.1",
    "v0.2.2",
    "v0.3.0",
    "v0.4.0",
    "v0.4.1",
    "v0.4.2",
    "v0.4.3",
    "v0.5.0",
    "v0.5.1",
  ],
};

/**
 * Releases published on ghcr.io/kptdev/krm-functions-catalog alone, after the catalog moved there: gcr.io/kpt-fn
 * never had them, so there `set-annotations:v0.1` is still v0.1.4 (what kpt pulls), and only an image of
 * the new registry names them, exactly or by a floating tag.
 */
const GHCR_ONLY: Readonly<Record<string, readonly string[]>> = {
  "apply-setters": ["v0.2.2"],
  "search-replace": ["v0.2.3"],
  "set-annotations": ["v0.1.5"],
};
const GHCR_CATALOG = "ghcr.io/kptdev/";

/**
 * The catalog's releases of function `name` that the registry of `image` publishes (oldest first):
 * all of them on ghcr.io/kptdev, those before the move anywhere else (gcr.io/kpt-fn, a mirror of it).
 */
export function releasesPublishedFor(name: string, image: string): readonly string[] | undefined {
  const all = CATALOG_RELEASES[name];
  if (all === undefined || image.trim().startsWith(GHCR_CATALOG)) return all;
  const newOnly = GHCR_ONLY[name] ?? [];
  return all.filter((r) => !newOnly.includes(r));
}

/** The tag of an image reference (`:v0.4.1`), or undefined for none; a digest is not a tag. */
export function imageTag(image: string): string | undefined {
  let ref = image.trim();
  const at = ref.indexOf("@");
  if (at >= 0) ref = ref.slice(0, at);
  const slash = ref.lastIndexOf("/");
  const last = slash >= 0 ? ref.slice(slash + 1) : ref;
  const colon = last.indexOf(":");
  return colon >= 0 ? last.slice(colon + 1) : undefined;
}

/** Whether the image is pinned by digest (`@sha256:…`). */
export function imageDigest(image: string): string | undefined {
  const at = image.indexOf("@");
  return at >= 0 ? image.slice(at + 1).trim() : undefined;
}

const SEMVER_PREFIX = /^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?$/;

/**
 * The release a tag names among `releases` (oldest first): an exact `vX.Y.Z`, the newest release of a
 * floating `vX.Y` or `vX`, the newest for `latest`, `unstable` or no tag. Undefined when the tag names no
 * release: a version never published, or a tag that is not a version.
 */
export function resolveRelease(tag: string | undefined, releases: readonly string[]): string | undefined {
  if (releases.length === 0) return undefined;
  if (tag === undefined || tag === "" || tag === "latest" || tag === "unstable") return releases.at(-1);
  const m = SEMVER_PREFIX.exec(tag);
  if (!m) return undefined;
  const want = [m[1], m[2], m[3]];
  const matching = releases.filter((r) => {
    const parts = SEMVER_PREFIX.exec(r);
    if (!parts) return false;
    return want.every((w, i) => w === undefined || w === parts[i + 1]);
  });
  // An exact version must be a release; a floating one takes the newest of its line.
  if (m[3] !== undefined) return matching.find((r) => r === `v${m[1]}.${m[2]}.${m[3]}`);
  return matching.at(-1);
}

/** The catalog's newest release of `name`: what a builtin run without a release behaves as. */
export function newestRelease(name: string): string {
  const newest = CATALOG_RELEASES[name]?.at(-1);
  if (newest === undefined) throw new Error(`no catalog releases are known for "${name}"`);
  return newest;
}

/** The catalog's releases of `name` from `from` to `to` (both included; `to` defaults to the newest). */
export function catalogReleases(name: string, from: string, to?: string): string[] {
  const all = CATALOG_RELEASES[name];
  if (!all) throw new Error(`no catalog releases are known for "${name}"`);
  const start = all.indexOf(from);
  const end = to === undefined ? all.length - 1 : all.indexOf(to);
  if (start < 0 || end < 0 || end < start) {
    throw new Error(`"${name}" has no catalog release range ${from}..${to ?? "newest"}`);
  }
  return all.slice(start, end + 1);
}

/** Orders two release versions (`v0.1.3` < `v0.1.10` < `v0.2.0`). */
function compareReleases(a: string, b: string): number {
  const pa = a.replace(/^v/, "").split(".").map(Number);
  const pb = b.replace(/^v/, "").split(".").map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/** Whether `release` is at least `min` (a switch in a builtin: `atLeast(ctx.release, "v0.2.0")`). */
export function atLeast(release: string, min: string): boolean {
  return compareReleases(release, min) >= 0;
}
