import { formatSource, type OciSource, parseSource } from "../../kpt/source-ref.js";
import type { FileTree } from "../../kpt/tree.js";
import { MergeError, upstreamOf } from "../../merge/index.js";
import { SourceError } from "../../sources/errors.js";
import type { RegistryClient } from "../../sources/oci/client.js";
import { noCredentials } from "../../sources/oci/credentials.js";
import { pullPackage } from "../../sources/oci/package.js";
import {
  type FanoutAction,
  isOciUpstream,
  type OciImageState,
  type OciIndex,
  ociImageKey,
  ociSourceOf,
  type Upstream,
} from "../../variants/index.js";
import { type RegistryAccess, registryClient } from "../mirror/index.js";
import { FanoutStepError } from "./context.js";
import type { UpstreamSource } from "./update.js";

const anonymous: RegistryAccess = { credentials: noCredentials };

/**
 * The digest each OCI image that variants follow by tag points to now: one manifest request (a HEAD)
 * per image per run, however many variants follow it; a pinned digest needs none. A registry that is
 * down or refuses, or a tag that does not exist, is that variant's problem on the dashboard, not the
 * run's.
 */
export async function resolveOciUpstreams(
  upstreams: readonly Upstream[],
  access: RegistryAccess = anonymous,
): Promise<OciIndex> {
  const images = new Map<string, OciSource>();
  for (const u of upstreams) {
    if (!isOciUpstream(u)) continue;
    const src = ociSourceOf(u);
    if (!src.digest) images.set(ociImageKey(src), src);
  }
  const out: Record<string, OciImageState> = {};
  for (const [key, src] of images) {
    const tag = src.tag ?? "latest";
    const ref = `oci://${src.registry}/${src.repository}:${tag}`;
    try {
      const digest = await registryClient(access, src.registry).digestOf(src.repository, tag);
      out[key] = digest
        ? { digest }
        : { problem: `${ref} does not exist: the registry has no tag ${tag} in ${src.repository}` };
    } catch (e) {
      if (!(e instanceof SourceError)) throw e;
      out[key] = { problem: `cannot resolve ${ref}: ${e.message}` };
    }
  }
  return out;
}

type TargetAction = Extract<FanoutAction, { kind: "clone" | "update" }>;

/**
 * Reads an OCI upstream for a clone or update: the package at the digest the tag resolved to, and the
 * package at the digest the downstream's Kptfile is locked to (the original of the 3-way merge), both by
 * digest so a tag moved meanwhile changes nothing. Pulled trees are shared through `cache` per run.
 */
export function ociUpstreamSource(
  action: TargetAction & { oci: NonNullable<TargetAction["oci"]> },
  access: RegistryAccess = anonymous,
  cache: Map<string, Promise<FileTree>>,
): UpstreamSource {
  const src = parseSource(action.oci.source, "spec.upstream.oci") as OciSource;
  const clients = new Map<string, RegistryClient>();
  const pull = (at: OciSource, digest: string, why: string): Promise<FileTree> => {
    const key = `oci://${at.registry}/${at.repository}@${digest}\0${at.directory}`;
    let tree = cache.get(key);
    if (!tree) {
      const client = clients.get(at.registry) ?? registryClient(access, at.registry);
      clients.set(at.registry, client);
      tree = pullPackage(client, at.repository, digest, at.directory).then(
        (p) => p.tree,
        (e: unknown) => {
          if (!(e instanceof SourceError)) throw e;
          throw new FanoutStepError(`reading ${why} ${formatSource({ ...at, digest })}: ${e.message}`);
        },
      );
      cache.set(key, tree);
    }
    return tree;
  };
  const version = src.tag ?? src.digest ?? "latest";
  return {
    lock: {
      repo: `oci://${src.registry}/${src.repository}`,
      directory: src.directory,
      ref: version,
      resolvedRef: version,
      commit: action.oci.digest,
    },
    target: () => pull(src, action.oci.digest, "the upstream image"),
    async original(local, where) {
      let info: ReturnType<typeof upstreamOf>;
      try {
        info = upstreamOf(local, where);
      } catch (e) {
        if (e instanceof MergeError) return new Map();
        throw e;
      }
      if (!info.repo.startsWith("oci://") || !info.lockCommit) return new Map();
      const locked = parseSource(`${info.repo}@${info.lockCommit}`, `${where}/Kptfile`) as OciSource;
      return pull(
        { ...locked, directory: info.directory },
        info.lockCommit,
        "the image the downstream was fetched from,",
      );
    },
  };
}
