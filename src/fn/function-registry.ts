import { CATALOG_RELEASES, imageDigest, imageTag, releasesPublishedFor, resolveRelease } from "./releases.js";
import type { BuiltinFunction } from "./types.js";

/** How a pipeline step may be run, for the message given when an image is not a builtin. */
export interface RuntimeHints {
  execAllowed?: boolean;
  containerAllowed?: boolean;
  /**
   * Who can allow a runtime: the person at the command line (its flags, the default), or the app's
   * operator and the repository's configuration (a check run's reader cannot pass a flag).
   */
  allowedBy?: "flags" | "settings";
}

/** How a reader allows container functions, as `hints` says who can. */
function allowContainer(hints: RuntimeHints): string {
  return hints.allowedBy === "settings"
    ? "the app's operator allows container functions (PORCHLIGHT_ALLOW_CONTAINER=1, with docker or podman on the app's host) and the repository lists `container` in `functions.runtimes` of .github/porchlight.yml"
    : "pass --allow-container (needs docker or podman)";
}

/** The function's short name in an image reference: the last path segment, without tag or digest. */
export function imageShortName(image: string): string {
  let ref = image.trim();
  const at = ref.indexOf("@");
  if (at >= 0) ref = ref.slice(0, at);
  const slash = ref.lastIndexOf("/");
  let name = slash >= 0 ? ref.slice(slash + 1) : ref;
  const colon = name.indexOf(":");
  if (colon >= 0) name = name.slice(0, colon);
  return name.toLowerCase();
}

/**
 * The image a pipeline step or `--image` names, as kpt resolves it before it runs or reports it: a name
 * with no registry path (`set-namespace:v0.1.3`) is a catalog function, `gcr.io/kpt-fn/<name>`.
 */
export function qualifiedImage(image: string): string {
  return image.includes("/") ? image : `gcr.io/kpt-fn/${image}`;
}

/** An image that names no builtin, with no other runtime to run it. */
export class UnknownFunctionError extends Error {
  constructor(
    readonly image: string,
    readonly known: readonly string[],
    hints: RuntimeHints = {},
  ) {
    super(unknownMessage(image, known, hints));
    this.name = "UnknownFunctionError";
  }
}

/** An image that names a builtin at a release (or digest) no builtin reproduces. */
export class UnsupportedReleaseError extends Error {
  constructor(
    readonly image: string,
    readonly reproduced: readonly string[],
    hints: RuntimeHints = {},
  ) {
    super(unsupportedMessage(image, reproduced, hints));
    this.name = "UnsupportedReleaseError";
  }
}

function unsupportedMessage(image: string, reproduced: readonly string[], hints: RuntimeHints): string {
  const digest = imageDigest(image);
  const tag = imageTag(image);
  const what =
    digest && tag === undefined
      ? `is pinned by digest only, so porchlight cannot tell which release of "${imageShortName(image)}" it is`
      : `names a release of "${imageShortName(image)}" that porchlight does not reproduce`;
  const pin = `pin one of the releases porchlight reproduces (${reproduced.join(", ")}, or vX.Y / latest for the newest of a line)`;
  const container = hints.containerAllowed ? "" : `; or, to run the image itself, ${allowContainer(hints)}`;
  return `function image "${image}" ${what}: ${pin}${container}`;
}

function unknownMessage(image: string, known: readonly string[], hints: RuntimeHints): string {
  const list = known.length > 0 ? known.join(", ") : "(none)";
  const ways: string[] = [];
  if (!hints.containerAllowed) {
    ways.push(`to run it as a container image, ${allowContainer(hints)}`);
  }
  if (!hints.execAllowed) {
    ways.push(
      hints.allowedBy === "settings"
        ? "to run a local executable instead, use `exec:` in the Kptfile, which the app's operator allows with PORCHLIGHT_ALLOW_EXEC=1 and the repository with `exec` in `functions.runtimes`"
        : "to run a local executable instead, use `exec:` in the Kptfile (or --exec) with --allow-exec",
    );
  }
  const how = ways.length > 0 ? `; ${ways.join("; ")}` : "";
  return `function image "${image}" is not a builtin function (builtins: ${list})${how}`;
}

/** A builtin and the catalog release it runs as. */
export interface ResolvedBuiltin {
  fn: BuiltinFunction;
  /** The release the image's tag names; "unversioned" for a builtin with no catalog releases. */
  release: string;
}

/** What an image names: a builtin at a release it reproduces, a builtin at another release, or nothing. */
export type Lookup =
  | ({ kind: "builtin" } & ResolvedBuiltin)
  | { kind: "unsupported"; reproduced: string[] }
  | { kind: "unknown" };

/** A lookup table from image names to builtin functions. Immutable: build a new one to add functions. */
export class FunctionRegistry {
  private readonly byName: ReadonlyMap<string, readonly BuiltinFunction[]>;

  constructor(builtins: readonly BuiltinFunction[]) {
    const byName = new Map<string, BuiltinFunction[]>();
    for (const fn of builtins) {
      const key = imageShortName(fn.name);
      const same = byName.get(key) ?? [];
      for (const other of same) {
        if (fn.releases === "unversioned" || other.releases === "unversioned") {
          throw new Error(`builtin function "${key}" is registered twice`);
        }
        const both = fn.releases.filter((r) => (other.releases as readonly string[]).includes(r));
        if (both.length > 0) {
          throw new Error(`builtin function "${key}" is registered twice for ${both.join(", ")}`);
        }
      }
      byName.set(key, [...same, fn]);
    }
    this.byName = byName;
  }

  /** Builtin names, sorted. */
  names(): string[] {
    return [...this.byName.keys()].sort();
  }

  /** Every release of `name` some builtin reproduces, oldest first ("unversioned" for none). */
  releases(name: string): string[] | "unversioned" {
    const fns = this.byName.get(imageShortName(name)) ?? [];
    if (fns.some((f) => f.releases === "unversioned")) return "unversioned";
    const all = new Set(fns.flatMap((f) => f.releases as readonly string[]));
    const order = CATALOG_RELEASES[imageShortName(name)] ?? [...all];
    return order.filter((r) => all.has(r));
  }

  /** What an image names here. */
  lookup(image: string): Lookup {
    const fns = this.byName.get(imageShortName(image));
    if (!fns || fns.length === 0) return { kind: "unknown" };
    const unversioned = fns.find((f) => f.releases === "unversioned");
    if (unversioned) return { kind: "builtin", fn: unversioned, release: "unversioned" };
    const reproduced = this.releases(image) as string[];
    const tag = imageTag(image);
    // A digest alone says nothing of the release; a tag beside a digest is read as the release.
    if (tag === undefined && imageDigest(image) !== undefined) return { kind: "unsupported", reproduced };
    // The tag is resolved among the catalog's releases its registry publishes (`v0.4` is the newest
    // v0.4.x there), not only ours.
    const catalog = releasesPublishedFor(imageShortName(image), image) ?? reproduced;
    const release = resolveRelease(tag, catalog);
    const fn =
      release === undefined ? undefined : fns.find((f) => (f.releases as string[]).includes(release));
    if (!fn || release === undefined) return { kind: "unsupported", reproduced };
    return { kind: "builtin", fn, release };
  }

  /** The builtin (and release) an image runs as, or undefined. */
  find(image: string): ResolvedBuiltin | undefined {
    const found = this.lookup(image);
    return found.kind === "builtin" ? { fn: found.fn, release: found.release } : undefined;
  }

  /**
   * The builtin an image runs as; throws UnknownFunctionError listing the builtins for an image that is
   * none, UnsupportedReleaseError listing the releases reproduced for a release that is not one of them.
   */
  resolve(image: string, hints: RuntimeHints = {}): ResolvedBuiltin {
    const found = this.lookup(image);
    if (found.kind === "builtin") return { fn: found.fn, release: found.release };
    throw this.refusal(image, hints);
  }

  /** Why an image that runs as no builtin cannot run here, with the ways it could. */
  refusal(image: string, hints: RuntimeHints = {}): UnknownFunctionError | UnsupportedReleaseError {
    const found = this.lookup(image);
    return found.kind === "unsupported"
      ? new UnsupportedReleaseError(image, found.reproduced, hints)
      : new UnknownFunctionError(image, this.names(), hints);
  }

  /** A registry with these functions added (replacing every builtin of the same name). */
  with(extra: readonly BuiltinFunction[]): FunctionRegistry {
    const names = new Set(extra.map((f) => imageShortName(f.name)));
    return new FunctionRegistry([
      ...[...this.byName.values()].flat().filter((f) => !names.has(imageShortName(f.name))),
      ...extra,
    ]);
  }
}
