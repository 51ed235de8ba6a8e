import { gunzipSync } from "node:zlib";
import { type FileTree, subtree } from "../../kpt/tree.js";
import { ContentRefused, SourceError } from "../errors.js";
import { EntryRefused, entryPath, readTarball, writeTarGz } from "../tar.js";
import { type Manifest, type RegistryClient, sha256Digest } from "./client.js";
import {
  type ImageManifest,
  isIndex,
  OCI_CONFIG,
  OCI_LAYER_TAR_GZIP,
  OCI_MANIFEST,
  TITLE_ANNOTATION,
} from "./media-types.js";
import { type PackageSize, packageSize, type RefusedBlobs } from "./refused-blobs.js";
import { indexManifests, manifestLayers, type ReadDescriptor, type ReadManifest, readJson } from "./wire.js";

/**
 * A kpt package as an OCI artifact. Reading is liberal, to take what kpt's OCI design, Porch, Flux,
 * Argo CD, Helm-style tools and ORAS push: from an index, the manifest without a platform (else
 * linux/amd64, else the first); then the first layer that is a tar or tar+gzip with a Kptfile at the
 * package's directory (or, for ORAS's directory layer, inside the directory its title names); failing
 * that, ORAS-style layers of one file each named by their title.
 * Writing is one tar+gzip layer, built deterministically, so the same tree gives the same digest.
 */

const KPTFILE = "Kptfile";

/** From an index's manifests, the one a package pull should read. */
function pickManifest(ms: readonly ReadDescriptor[]): ReadDescriptor | undefined {
  return (
    ms.find((m) => !m.platform) ??
    ms.find((m) => m.platform?.os === "linux" && m.platform.architecture === "amd64") ??
    ms[0]
  );
}

export interface PulledPackage {
  /** The digest the reference resolved to (of the index, when it is one): what the lock records. */
  digest: string;
  /** The package's files, relative to `directory`. */
  tree: FileTree;
}

/** The image manifest behind a tag or digest, with the digest the reference itself resolves to. */
async function resolveManifest(
  client: RegistryClient,
  repository: string,
  reference: string,
): Promise<{ digest: string; manifest: ReadManifest }> {
  const what = `${client.registry}/${repository}:${reference}`;
  const top = await client.manifest(repository, reference);
  const manifestOf = (m: Manifest) =>
    readJson(manifestLayers, m.bytes.toString("utf8"), `${what}: the manifest`);
  if (!isIndex(top.mediaType)) return { digest: top.digest, manifest: manifestOf(top) };
  const index = readJson(indexManifests, top.bytes.toString("utf8"), `${what}: the image index`);
  const chosen = pickManifest(index.manifests);
  if (!chosen) throw new SourceError(`${what}: the image index lists no manifests`);
  const inner = await client.manifest(repository, chosen.digest);
  if (isIndex(inner.mediaType)) throw new SourceError(`${what}: an index inside an index is not read`);
  return { digest: top.digest, manifest: manifestOf(inner) };
}

export interface PullOptions {
  /** Layers refused before, by digest: not downloaded again (kept across pulls by the caller). */
  refused?: RefusedBlobs;
  /** Why a package of this size is refused (the package limits), or undefined when it is taken. */
  admit?: (size: PackageSize) => string | undefined;
}

/**
 * The package at `directory` of the artifact `reference` points to. A layer refused for its content
 * (too large, an entry outside its root, not a tar, or a package `admit` refuses) is remembered in
 * `refused` by digest and answered from there the next time, without a download.
 */
export async function pullPackage(
  client: RegistryClient,
  repository: string,
  reference: string,
  directory: string,
  opts: PullOptions = {},
): Promise<PulledPackage> {
  const { digest, manifest } = await resolveManifest(client, repository, reference);
  const what = `oci://${client.registry}/${repository}@${digest}`;
  const layers = manifest.layers;
  const seen: string[] = [];
  const dir = directory.replace(/^\/+|\/+$/g, "");
  for (const layer of layers) {
    if (layer.annotations?.[TITLE_ANNOTATION] && !/tar/.test(layer.mediaType)) continue;
    const tree = await readLayer(
      client,
      repository,
      layer.digest,
      { what: `${what} layer ${layer.digest}`, dir },
      opts,
    );
    if (typeof tree === "string") {
      seen.push(`${layer.mediaType} (${tree})`);
      continue;
    }
    const pkg = subtree(tree, dir);
    if (pkg.has(KPTFILE)) return { digest, tree: admitted(pkg, layer.digest, dir, opts) };
    // ORAS pushes a directory as one tar+gzip layer titled by the directory's name, its entries under
    // that name (`oras push … ./web` → `web/Kptfile`): the package is read from inside it.
    const titled = layer.annotations?.[TITLE_ANNOTATION];
    const title = titled ? titledPath(titled, what, layer.digest) : "";
    if (title) {
      const inner = subtree(tree, `${title}/${dir}`.replace(/\/+$/, ""));
      if (inner.has(KPTFILE)) return { digest, tree: admitted(inner, layer.digest, dir, opts) };
    }
    seen.push(`${layer.mediaType} (no ${directory === "/" ? "" : `${directory.slice(1)}/`}Kptfile)`);
  }
  const titled = layers.filter((l) => l.annotations?.[TITLE_ANNOTATION]);
  for (const l of titled) titledPath(l.annotations?.[TITLE_ANNOTATION] ?? "", what, l.digest);
  if (titled.length > 0) {
    const files: FileTree = new Map();
    for (const l of titled) {
      const title = titledPath(l.annotations?.[TITLE_ANNOTATION] ?? "", what, l.digest);
      files.set(title, await client.blob(repository, l.digest));
    }
    const pkg = subtree(files, dir);
    if (pkg.has(KPTFILE)) return { digest, tree: admitted(pkg, digest, dir, opts) };
  }
  throw new SourceError(
    `${what}: no layer holds a package (a tar or tar+gzip layer with ${directory === "/" ? "a Kptfile at its root" : `${directory.slice(1)}/Kptfile`}); layers: ${seen.join(", ") || "none"}`,
  );
}

/**
 * A layer's files, or why it holds no archive ("not a tar"); refused layers throw ContentRefused, from
 * `opts.refused` without a download when refused before.
 */
async function readLayer(
  client: RegistryClient,
  repository: string,
  digest: string,
  at: { what: string; dir: string },
  opts: PullOptions,
): Promise<FileTree | string> {
  const { what, dir } = at;
  const known = opts.refused?.blob(digest);
  if (known?.kind === "refused")
    throw new ContentRefused(`${known.reason} (refused when first read; not downloaded again)`);
  if (known?.kind === "not-a-tar") return known.reason;
  // the package at this directory was over a limit: refused again unless the limit was raised since
  const size = opts.refused?.measured(digest, dir);
  const refusal = size && opts.admit?.(size);
  if (refusal) throw new ContentRefused(`${refusal} (counted when first read; not downloaded again)`);
  const remember = (err: unknown): never => {
    if (err instanceof ContentRefused) opts.refused?.refuse(digest, { kind: "refused", reason: err.message });
    throw err;
  };
  // a registry that cannot be reached or refuses the login is not remembered: the next run asks again
  const bytes = await client.blob(repository, digest).catch(remember);
  try {
    return await readTarball(bytes, what);
  } catch (err) {
    if (!(err instanceof SourceError) || err instanceof ContentRefused) return remember(err);
    opts.refused?.refuse(digest, { kind: "not-a-tar", reason: "not a tar" });
    return "not a tar";
  }
}

/** The package, unless `opts.admit` refuses its size: then remembered as measured, and refused. */
function admitted(pkg: FileTree, digest: string, dir: string, opts: PullOptions): FileTree {
  const size = packageSize(pkg);
  const refusal = opts.admit?.(size);
  if (refusal === undefined) return pkg;
  opts.refused?.measure(digest, dir, size);
  throw new ContentRefused(refusal);
}

interface PackageArtifact {
  manifest: Buffer;
  digest: string;
  config: Buffer;
  layer: Buffer;
}

/**
 * The artifact for a package tree: one tar+gzip layer, a minimal image config (so tools that expect
 * an image, such as skopeo inspect and umoci, read it) and the given manifest annotations. The same
 * tree and annotations give the same bytes, hence the same digest.
 */
async function packageArtifact(
  tree: FileTree,
  annotations: Record<string, string>,
): Promise<PackageArtifact> {
  const layer = await writeTarGz(tree);
  const diffId = sha256Digest(gunzipSync(layer));
  const config = Buffer.from(
    JSON.stringify({
      architecture: "amd64",
      os: "linux",
      config: {},
      rootfs: { type: "layers", diff_ids: [diffId] },
    }),
  );
  const sorted = Object.fromEntries(Object.entries(annotations).sort(([a], [b]) => (a < b ? -1 : 1)));
  const manifestJson: ImageManifest = {
    schemaVersion: 2,
    mediaType: OCI_MANIFEST,
    config: { mediaType: OCI_CONFIG, digest: sha256Digest(config), size: config.length },
    layers: [{ mediaType: OCI_LAYER_TAR_GZIP, digest: sha256Digest(layer), size: layer.length }],
    ...(Object.keys(sorted).length > 0 ? { annotations: sorted } : {}),
  };
  const manifest = Buffer.from(JSON.stringify(manifestJson));
  return { manifest, digest: sha256Digest(manifest), config, layer };
}

export interface PushResult {
  digest: string;
  /** False when the tag already pointed to this digest: nothing was uploaded. */
  pushed: boolean;
}

/**
 * Pushes the package as `repository:tag`, unless the tag already holds exactly this artifact. With
 * `mountFrom` (asked only when something is pushed: another repository of the same registry likely to
 * hold the same blobs), each missing blob is first asked to be mounted from there instead of uploaded.
 */
export async function pushPackage(
  client: RegistryClient,
  repository: string,
  tag: string,
  tree: FileTree,
  annotations: Record<string, string>,
  opts: { mountFrom?: () => Promise<string | undefined> } = {},
): Promise<PushResult> {
  const artifact = await packageArtifact(tree, annotations);
  if ((await client.digestOf(repository, tag)) === artifact.digest)
    return { digest: artifact.digest, pushed: false };
  const from = await opts.mountFrom?.();
  await client.pushBlob(repository, artifact.layer, from);
  await client.pushBlob(repository, artifact.config, from);
  await client.pushManifest(repository, tag, artifact.manifest, OCI_MANIFEST);
  return { digest: artifact.digest, pushed: true };
}

/**
 * A layer's title (`org.opencontainers.image.title`) as the path ORAS unpacks it at: relative to the
 * package's root, or the artifact is refused naming the layer — as an archive entry is (tar.ts).
 */
function titledPath(title: string, what: string, digest: string): string {
  const path = entryPath(title);
  if (typeof path === "string") return path;
  throw new EntryRefused(`${what}: refused layer ${digest} titled ${JSON.stringify(title)}: ${path.refused}`);
}
