import { readFileSync } from "node:fs";
import type { RepoFiles } from "../../github/port.js";
import { type FileTree, subtree } from "../../kpt/tree.js";
import { indexRefs } from "../../lifecycle/refs.js";
import { parseRevisionTag } from "../../lifecycle/revision-tag.js";
import { type EgressPolicy, egressFetch } from "../../sources/egress.js";
import { SourceError } from "../../sources/errors.js";
import { RegistryClient } from "../../sources/oci/client.js";
import { type CredentialLookup, dockerCredentials, noCredentials } from "../../sources/oci/credentials.js";
import { OperatorCredentials } from "../../sources/oci/operator-credentials.js";
import { pushPackage } from "../../sources/oci/package.js";
import { RefusedBlobs } from "../../sources/oci/refused-blobs.js";
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
  /**
   * The image layers fan-out refused (too large, a package over a limit), by digest, kept for the
   * process's life so that a refused layer is not downloaded again on every run; absent: read again.
   */
  refusedBlobs?: RefusedBlobs;
  /**
   * The operator's named credentials and who may use them (PORCHLIGHT_REGISTRY_CREDENTIALS): when set,
   * each repository reaches registries with its own (scopedAccess) and `credentials` is not used.
   */
  operator?: OperatorCredentials;
}

/** What reading a registry or tarball needs of that access (fan-out from an OCI or tarball upstream). */
export type RegistryAccess = Pick<
  MirrorAccess,
  "credentials" | "fetch" | "tarballs" | "refusedBlobs" | "operator"
>;

/**
 * The operator's access, reaching only what the egress policy allows (`policy`: PORCHLIGHT_EGRESS_ALLOW
 * and the endpoints the app itself serves; operatorServicesFromEnv builds both): the named credentials
 * of the file PORCHLIGHT_REGISTRY_CREDENTIALS names (read now: a bad file stops the start with its
 * problem), else PORCHLIGHT_OCI_* and the Docker config file of the app's environment, for every
 * repository (one owner's app, or the Action in its own repository).
 */
export function mirrorAccessFromEnv(
  env: NodeJS.ProcessEnv,
  // every fetch on a repository's behalf keeps to the operator's egress policy (docs/operations.md)
  policy: EgressPolicy,
  /** The web address of the GitHub the app serves (GitHub Enterprise, the forge); else GITHUB_SERVER_URL. */
  serverUrl?: string,
): MirrorAccess {
  const file = env.PORCHLIGHT_REGISTRY_CREDENTIALS;
  let operator: OperatorCredentials | undefined;
  if (file) {
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch (err) {
      throw new SourceError(
        `PORCHLIGHT_REGISTRY_CREDENTIALS names ${file}, which cannot be read: ${(err as Error).message}`,
      );
    }
    operator = OperatorCredentials.parse(text, file);
  }
  return {
    credentials: operator ? noCredentials : dockerCredentials(env),
    serverUrl: serverUrl || env.GITHUB_SERVER_URL || "https://github.com",
    tarballs: new TarballCache(),
    refusedBlobs: new RefusedBlobs(),
    fetch: egressFetch(policy),
    ...(operator ? { operator } : {}),
  };
}

/**
 * The access of one repository (`owner/name`): with the operator's named credentials, those it may use
 * (the one its configuration's `registries.<host>` names, refused with that field when not allowed);
 * without them, the environment's. A repository naming a credential where the operator defines none
 * is refused too, so a configuration never silently means something else.
 */
export function scopedAccess(
  access: RegistryAccess,
  repository: string,
  registries: Readonly<Record<string, string>> = {},
): RegistryAccess {
  if (access.operator) {
    return { ...access, credentials: access.operator.lookupFor(repository, registries) };
  }
  if (Object.keys(registries).length === 0) return access;
  const fallback = access.credentials;
  return {
    ...access,
    credentials: async (registry) => {
      if (registries[registry] !== undefined) {
        throw new SourceError(
          `.github/porchlight.yml of ${repository}: registries.${registry}: ${NO_OPERATOR_CREDENTIALS}`,
        );
      }
      return fallback(registry);
    },
  };
}

export const NO_OPERATOR_CREDENTIALS =
  "the app's operator defines no named registry credentials (PORCHLIGHT_REGISTRY_CREDENTIALS), so the bot uses the operator's own login for every repository; remove the field, or ask the operator to define the credential";

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
  operatorAccess: MirrorAccess,
  rev: { package: string; revision: number; commit: string },
): Promise<MirrorResult | undefined> {
  const prefix = ctx.config.publish.oci?.repository;
  if (!prefix) return undefined;
  const { owner, repo } = ctx.port.id;
  const access = {
    ...operatorAccess,
    ...scopedAccess(operatorAccess, `${owner}/${repo}`, ctx.config.registries),
  };
  const { registry, repository } = target(prefix, rev.package);
  const { tree } = await ctx.port.readTree(rev.commit, rev.package);
  const version = `v${rev.revision}`;
  const annotations = {
    "org.opencontainers.image.source": `${access.serverUrl.replace(/\/+$/, "")}/${owner}/${repo}`,
    "org.opencontainers.image.revision": rev.commit,
    "org.opencontainers.image.version": version,
    "org.opencontainers.image.title": rev.package,
  };
  const out = await pushPackage(registryClient(access, registry), repository, version, tree, annotations, {
    mountFrom: () => identicalSibling(ctx.port, rev, tree, prefix),
  });
  const image = `${registry}/${repository}:${version}`;
  ctx.log.info({ image, digest: out.digest, pushed: out.pushed }, "revision mirrored");
  return { image, ...out };
}

/**
 * Another package of the repository whose files at the same commit are exactly these, and whose mirror
 * repository therefore holds the same layer (the archive is deterministic) if it mirrored that content:
 * the blobs are mounted from there rather than uploaded again (a package copied, or two packages alike).
 * Read from git (one ls-remote, the commit's files); undefined when none is alike.
 */
async function identicalSibling(
  port: RepoFiles,
  rev: { package: string; commit: string },
  tree: FileTree,
  prefix: string,
): Promise<string | undefined> {
  const others = new Set<string>();
  for (const tag of indexRefs(await port.listRefs()).tags.keys()) {
    const parsed = parseRevisionTag(tag);
    if (parsed.ok && parsed.value.package !== rev.package) others.add(parsed.value.package);
  }
  if (others.size === 0) return undefined;
  const { tree: all } = await port.readTree(rev.commit);
  for (const pkg of [...others].sort()) {
    const theirs = subtree(all, pkg);
    if (theirs.size !== tree.size) continue;
    if ([...tree].every(([path, bytes]) => theirs.get(path)?.equals(bytes)))
      return target(prefix, pkg).repository;
  }
  return undefined;
}

/** The sweep's part: each package's latest revision pushed where its tag is missing from the registry. */
export async function sweepMirror(
  ctx: Pick<JobContext, "config" | "port" | "log">,
  operatorAccess: MirrorAccess,
): Promise<MirrorResult[]> {
  const prefix = ctx.config.publish.oci?.repository;
  if (!prefix) return [];
  const { owner, repo } = ctx.port.id;
  const access = scopedAccess(operatorAccess, `${owner}/${repo}`, ctx.config.registries);
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
    const r = await mirrorRevision(ctx, operatorAccess, { package: pkg, ...rev });
    if (r) out.push(r);
  }
  return out;
}
