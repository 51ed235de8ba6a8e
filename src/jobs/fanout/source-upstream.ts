import { DEFAULT_LIMITS, type EffectiveLimits, effectiveLimits } from "../../config/limits.js";
import {
  formatSource,
  type OciSource,
  type PackageSource,
  parseSource,
  type TarballSource,
} from "../../kpt/source-ref.js";
import { type FileTree, subtree } from "../../kpt/tree.js";
import { MergeError, upstreamOf } from "../../merge/index.js";
import { egressFetch, egressPolicy } from "../../sources/egress.js";
import { SourceError } from "../../sources/errors.js";
import type { RegistryClient } from "../../sources/oci/client.js";
import { noCredentials } from "../../sources/oci/credentials.js";
import { pullPackage } from "../../sources/oci/package.js";
import { packageSize } from "../../sources/oci/refused-blobs.js";
import { fetchTarball, TarballCache } from "../../sources/tarball-fetch.js";
import {
  type FanoutAction,
  isSourceUpstream,
  type SourceIndex,
  type SourceState,
  sourceKey,
  sourceOf,
  type Upstream,
} from "../../variants/index.js";
import { type RegistryAccess, registryClient } from "../mirror/index.js";
import { type Admit, admitWithin } from "./admit.js";
import { FanoutStepError } from "./context.js";
import type { RepoSnapshot } from "./snapshot.js";
import { readKeptSource } from "./source-store.js";
import type { UpstreamSource } from "./update.js";

/** Where the app gave no access of its own: no credential, and the egress policy with nothing allowed. */
const anonymous: RegistryAccess = { credentials: noCredentials, fetch: egressFetch(egressPolicy([])) };

/**
 * What each OCI image and tarball that variants follow holds now, as a digest: for an image, one manifest
 * request (a HEAD) per image per run, however many variants follow it; for an unpinned tarball, one
 * request for the URL, conditional (`If-None-Match` / `If-Modified-Since`) when an earlier run saw its
 * validators, else the bytes hashed. A pinned digest needs no request. A registry or server that is down
 * or refuses, or a tag that does not exist, is that variant's problem on the dashboard, not the run's.
 */
export async function resolveSourceUpstreams(
  upstreams: readonly Upstream[],
  access: RegistryAccess = anonymous,
  tarballs: TarballCache = access.tarballs ?? new TarballCache(),
): Promise<SourceIndex> {
  const sources = new Map<string, PackageSource>();
  for (const u of upstreams) {
    if (!isSourceUpstream(u)) continue;
    const src = sourceOf(u);
    if (!src.digest) sources.set(sourceKey(src), src);
  }
  const out: Record<string, SourceState> = {};
  for (const [key, src] of sources) {
    out[key] =
      src.kind === "oci" ? await resolveImage(src, access) : await resolveTarball(src, access, tarballs);
  }
  return out;
}

async function resolveImage(src: OciSource, access: RegistryAccess): Promise<SourceState> {
  const tag = src.tag ?? "latest";
  const ref = `oci://${src.registry}/${src.repository}:${tag}`;
  try {
    const digest = await registryClient(access, src.registry).digestOf(src.repository, tag);
    return digest
      ? { digest }
      : { problem: `${ref} does not exist: the registry has no tag ${tag} in ${src.repository}` };
  } catch (e) {
    if (!(e instanceof SourceError)) throw e;
    return { problem: `cannot resolve ${ref}: ${e.message}` };
  }
}

async function resolveTarball(
  src: TarballSource,
  access: RegistryAccess,
  tarballs: TarballCache,
): Promise<SourceState> {
  try {
    const got = await fetchTarball(src.url, {
      cache: tarballs,
      ...(access.fetch ? { fetch: access.fetch } : {}),
    });
    return { digest: got.digest };
  } catch (e) {
    if (!(e instanceof SourceError)) throw e;
    return { problem: `cannot read ${src.url}: ${e.message}` };
  }
}

type TargetAction = Extract<FanoutAction, { kind: "clone" | "update" }>;

/**
 * Reads an OCI or tarball upstream for a clone or update: the package at the digest this run resolved,
 * and the package at the digest the downstream's Kptfile is locked to (the original of the 3-way merge).
 * An image is read by digest both times, so a tag moved meanwhile changes nothing. A tarball is read at its
 * URL and checked against the digest (its pin, or what this run resolved); its original is the content
 * fan-out kept in the downstream repository (source-store.ts), else the lock's URL if it still serves
 * those bytes. Pulled trees are shared through `cache` per run.
 */
export function sourceUpstream(
  action: TargetAction & { source: NonNullable<TargetAction["source"]> },
  snap: RepoSnapshot,
  access: RegistryAccess = anonymous,
  cache: Map<string, Promise<FileTree>>,
  limits: EffectiveLimits = effectiveLimits(DEFAULT_LIMITS, {}),
): UpstreamSource {
  const src = parseSource(action.source.source, "spec.upstream");
  const admit = admitWithin(action.source.source, limits);
  const once = (key: string, read: () => Promise<FileTree>): Promise<FileTree> => {
    let tree = cache.get(key);
    if (!tree) {
      tree = read();
      cache.set(key, tree);
    }
    return tree;
  };
  if (src.kind === "oci") return imageSource(src, action.source.digest, { access, admit }, once);
  return tarballSource(src, action.source.digest, snap, { access, admit }, once);
}

type Once = (key: string, read: () => Promise<FileTree>) => Promise<FileTree>;

function stepError(what: string, e: unknown): never {
  if (e instanceof SourceError) throw new FanoutStepError(`${what}: ${e.message}`);
  throw e;
}

/** The downstream's lock, or undefined when its Kptfile names none of this kind. */
function lockOf(local: FileTree, where: string, scheme: "oci" | "https") {
  let info: ReturnType<typeof upstreamOf>;
  try {
    info = upstreamOf(local, where);
  } catch (e) {
    if (e instanceof MergeError) return undefined;
    throw e;
  }
  const isOci = info.repo.startsWith("oci://");
  if ((scheme === "oci") !== isOci || !info.lockCommit) return undefined;
  return { ...info, lockCommit: info.lockCommit };
}

function imageSource(
  src: OciSource,
  digest: string,
  read: { access: RegistryAccess; admit: Admit },
  once: Once,
): UpstreamSource {
  const { access } = read;
  const clients = new Map<string, RegistryClient>();
  const pull = (at: OciSource, atDigest: string, why: string): Promise<FileTree> =>
    once(`oci://${at.registry}/${at.repository}@${atDigest}\0${at.directory}`, () => {
      const client = clients.get(at.registry) ?? registryClient(access, at.registry);
      clients.set(at.registry, client);
      const opts = { admit: read.admit, ...(access.refusedBlobs ? { refused: access.refusedBlobs } : {}) };
      return pullPackage(client, at.repository, atDigest, at.directory, opts).then(
        (p) => p.tree,
        (e: unknown) => stepError(`reading ${why} ${formatSource({ ...at, digest: atDigest })}`, e),
      );
    });
  const version = src.tag ?? src.digest ?? "latest";
  return {
    lock: {
      repo: `oci://${src.registry}/${src.repository}`,
      directory: src.directory,
      ref: version,
      resolvedRef: version,
      commit: digest,
    },
    target: () => pull(src, digest, "the upstream image"),
    async original(local, where) {
      const info = lockOf(local, where, "oci");
      if (!info) return new Map();
      const locked = parseSource(`${info.repo}@${info.lockCommit}`, `${where}/Kptfile`) as OciSource;
      return pull(
        { ...locked, directory: info.directory },
        info.lockCommit,
        "the image the downstream was fetched from,",
      );
    },
  };
}

function tarballSource(
  src: TarballSource,
  digest: string,
  snap: RepoSnapshot,
  read: { access: RegistryAccess; admit: Admit },
  once: Once,
): UpstreamSource {
  const { access } = read;
  const tarballs = access.tarballs ?? new TarballCache();
  const opts = { cache: tarballs, ...(access.fetch ? { fetch: access.fetch } : {}) };
  const dirOf = (directory: string) => directory.replace(/^\/+|\/+$/g, "");
  return {
    lock: {
      repo: src.url,
      directory: src.directory,
      ref: src.digest ?? "",
      resolvedRef: src.url,
      commit: digest,
    },
    target: () =>
      once(`${src.url}#${digest}\0${src.directory}`, async () => {
        // What this run resolved is at hand: read again only when the cache forgot it (or for a pin).
        const known = tarballs.get(src.url);
        const got =
          known?.digest === digest
            ? known
            : await fetchTarball(src.url, opts).catch((e: unknown) =>
                stepError(`reading the upstream tarball ${src.url}`, e),
              );
        if (got.digest !== digest) {
          throw new FanoutStepError(
            src.digest
              ? `${src.url} has sha256 ${got.digest}, not the pinned ${digest}; refusing it (fix the pin, or the server)`
              : `${src.url} changed again while this run read it (sha256 ${got.digest}, planned ${digest}); the next run proposes what it holds then`,
          );
        }
        const pkg = subtree(got.tree, dirOf(src.directory));
        const refusal = read.admit(packageSize(pkg));
        if (refusal) throw new FanoutStepError(`reading the upstream tarball ${src.url}: ${refusal}`);
        return pkg;
      }),
    async original(local, where) {
      const info = lockOf(local, where, "https");
      if (!info) return new Map();
      const key = `${info.repo}#${info.lockCommit}\0${info.directory}`;
      return once(key, async () => {
        const kept = await readKeptSource(snap.port, info.lockCommit, info.directory);
        if (kept) return kept;
        const got = await fetchTarball(info.repo, opts).catch((e: unknown) =>
          stepError(`reading the tarball the downstream was fetched from, ${info.repo}`, e),
        );
        if (got.digest !== info.lockCommit) {
          throw new FanoutStepError(
            `the content ${where} was fetched from (${info.repo}, sha256 ${info.lockCommit}) is no longer served there (it has ${got.digest} now) and no copy of it is kept on branch porchlight/sources, so the 3-way merge has no original and would lose the downstream's edits: serve the old content at a versioned URL and pin the lock to it, or clone the package again`,
          );
        }
        return subtree(got.tree, dirOf(info.directory));
      });
    },
  };
}
