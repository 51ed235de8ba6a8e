import { indexRefs } from "../../lifecycle/refs.js";
import { parseRevisionTag } from "../../lifecycle/revision-tag.js";
import { RegistryClient } from "../../sources/oci/client.js";
import { type CredentialLookup, dockerCredentials } from "../../sources/oci/credentials.js";
import { pushPackage } from "../../sources/oci/package.js";
import { TarballCache } from "../../sources/tarball-fetch.js";
import type { JobContext } from "../context.js";

/**
 * The mirror on publish (`publish.oci` in `.github/porchlight.yml`): each published revision
 * `<package>/v<N>` pushed as `<repository>/<package>:v<N>`, one tar+gzip layer built deterministically
 * (so a revision pushed again has the same digest, and is not uploaded twice), with the
 * `org.opencontainers.image.source`, `.revision` and `.version` annotations Flux and Argo CD show.
 * The publish pushes its revision; the sweep pushes each package's latest revision if its tag is
 * missing from the registry (one HEAD request per package), so a failed or missed push heals.
 */

/** How the bot reaches registries: the operator's credentials (never the repository's files). */
export interface MirrorAccess {
  credentials: CredentialLookup;
  /** GitHub's web address, for the source annotation (GITHUB_SERVER_URL; default https://github.com). */
  serverUrl: string;
  fetch?: typeof fetch;
  /**
   * What fan-out last read of each tarball upstream (validators, digest, files), kept for the process's
   * life so that an unchanged tarball costs one conditional request per run; absent: read in full.
   */
  tarballs?: TarballCache;
}

/** What reading a registry or tarball needs of that access (fan-out from an OCI or tarball upstream). */
export type RegistryAccess = Pick<MirrorAccess, "credentials" | "fetch" | "tarballs">;

/** The operator's access: PORCHLIGHT_OCI_* and the Docker config file of the app's environment. */
export function mirrorAccessFromEnv(env: NodeJS.ProcessEnv): MirrorAccess {
  return {
    credentials: dockerCredentials(env),
    serverUrl: env.GITHUB_SERVER_URL || "https://github.com",
    tarballs: new TarballCache(),
  };
}

export interface MirrorResult {
  image: string;
  digest: string;
  pushed: boolean;
}

function target(prefix: string, pkg: string): { registry: string; repository: string } {
  const slash = prefix.indexOf("/");
  return { registry: prefix.slice(0, slash), repository: `${prefix.slice(slash + 1)}/${pkg.toLowerCase()}` };
}

/** A client for `registry` with the operator's credentials. */
export function registryClient(access: RegistryAccess, registry: string): RegistryClient {
  return new RegistryClient(registry, {
    credentials: access.credentials,
    ...(access.fetch ? { fetch: access.fetch } : {}),
  });
}

/** Pushes one revision (its package's files at the tagged commit); nothing when publish.oci is unset. */
export async function mirrorRevision(
  ctx: Pick<JobContext, "config" | "port" | "log">,
  access: MirrorAccess,
  rev: { package: string; revision: number; commit: string },
): Promise<MirrorResult | undefined> {
  const prefix = ctx.config.publish.oci?.repository;
  if (!prefix) return undefined;
  const { registry, repository } = target(prefix, rev.package);
  const { tree } = await ctx.port.readTree(rev.commit, rev.package);
  const { owner, repo } = ctx.port.id;
  const version = `v${rev.revision}`;
  const annotations = {
    "org.opencontainers.image.source": `${access.serverUrl.replace(/\/+$/, "")}/${owner}/${repo}`,
    "org.opencontainers.image.revision": rev.commit,
    "org.opencontainers.image.version": version,
    "org.opencontainers.image.title": rev.package,
  };
  const out = await pushPackage(registryClient(access, registry), repository, version, tree, annotations);
  const image = `${registry}/${repository}:${version}`;
  ctx.log.info({ image, digest: out.digest, pushed: out.pushed }, "revision mirrored");
  return { image, ...out };
}

/** The sweep's part: each package's latest revision pushed where its tag is missing from the registry. */
export async function sweepMirror(
  ctx: Pick<JobContext, "config" | "port" | "log">,
  access: MirrorAccess,
): Promise<MirrorResult[]> {
  const prefix = ctx.config.publish.oci?.repository;
  if (!prefix) return [];
  const latest = new Map<string, { revision: number; commit: string }>();
  for (const [tag, sha] of indexRefs(await ctx.port.listRefs()).tags) {
    const parsed = parseRevisionTag(tag);
    if (!parsed.ok) continue;
    const known = latest.get(parsed.value.package);
    if (!known || parsed.value.revision > known.revision) {
      latest.set(parsed.value.package, { revision: parsed.value.revision, commit: sha });
    }
  }
  const out: MirrorResult[] = [];
  for (const [pkg, rev] of [...latest].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const { registry, repository } = target(prefix, pkg);
    if (await registryClient(access, registry).digestOf(repository, `v${rev.revision}`)) continue;
    const r = await mirrorRevision(ctx, access, { package: pkg, ...rev });
    if (r) out.push(r);
  }
  return out;
}
