import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { SourceError } from "../errors.js";
import { type DockerConfig, dockerConfig, helperCredentials, parseJsonOr, readJson } from "./wire.js";

/**
 * Registry credentials for the command line, found as Docker finds them: the environment first
 * (`PORCHLIGHT_OCI_REGISTRY` with `PORCHLIGHT_OCI_USERNAME` and `PORCHLIGHT_OCI_PASSWORD`, for CI),
 * then `$DOCKER_CONFIG/config.json` (default `~/.docker/config.json`): `auths.<registry>.auth` (base64
 * `user:password`) or `username`/`password`, and `credHelpers.<registry>` / `credsStore` helpers
 * (`docker-credential-<name> get`, which `docker login` sets up). No file means no credentials.
 */

export interface Credentials {
  username: string;
  password: string;
}

/** Credentials for a registry host (as written in a reference: `ghcr.io`, `localhost:5000`), if any. */
export type CredentialLookup = (registry: string) => Promise<Credentials | undefined>;

export const noCredentials: CredentialLookup = async () => undefined;

/** The keys a registry may be stored under in config.json (Docker Hub has its historical one). */
function configKeys(registry: string): string[] {
  if (registry === "docker.io" || registry === "registry-1.docker.io" || registry === "index.docker.io") {
    return ["https://index.docker.io/v1/", "index.docker.io", "docker.io", "registry-1.docker.io"];
  }
  return [
    registry,
    `https://${registry}`,
    `http://${registry}`,
    `https://${registry}/v1/`,
    `https://${registry}/v2/`,
  ];
}

function decodeAuth(auth: string, file: string, key: string): Credentials {
  const text = Buffer.from(auth, "base64").toString("utf8");
  const colon = text.indexOf(":");
  if (colon < 0) {
    throw new SourceError(
      `${file}: auths."${key}".auth is not base64 of "user:password"; run docker login ${key} again`,
    );
  }
  return { username: text.slice(0, colon), password: text.slice(colon + 1) };
}

function runHelper(
  helper: string,
  registry: string,
  env: NodeJS.ProcessEnv,
): Promise<Credentials | undefined> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      `docker-credential-${helper}`,
      ["get"],
      { timeout: 30_000, env },
      (err, stdout) => {
        if (err) {
          // a helper that knows no credentials for this registry exits non-zero: anonymous access
          if (/credentials not found/i.test(String(stdout) + String(err.message))) return resolve(undefined);
          return reject(
            new SourceError(
              `credential helper docker-credential-${helper} failed for ${registry}: ${err.message}`,
            ),
          );
        }
        const out = helperCredentials.safeParse(parseJsonOr(stdout));
        if (!out.success) {
          return reject(
            new SourceError(
              `credential helper docker-credential-${helper} printed no JSON object of Username and Secret for ${registry}`,
            ),
          );
        }
        resolve(
          out.data.Secret ? { username: out.data.Username ?? "", password: out.data.Secret } : undefined,
        );
      },
    );
    child.stdin?.end(registry);
  });
}

/** The CLI's lookup: environment, then the Docker config file (read once, on first use). */
export function dockerCredentials(env: NodeJS.ProcessEnv): CredentialLookup {
  const dir = env.DOCKER_CONFIG || join(env.HOME || homedir(), ".docker");
  const file = join(dir, "config.json");
  let config: Promise<DockerConfig> | undefined;
  const load = async (): Promise<DockerConfig> => {
    let text: string;
    try {
      text = await readFile(file, "utf8");
    } catch {
      return {};
    }
    try {
      return readJson(dockerConfig, text, file);
    } catch (err) {
      throw new SourceError(`${(err as Error).message}; fix it or point DOCKER_CONFIG elsewhere`);
    }
  };
  return async (registry) => {
    const envRegistry = env.PORCHLIGHT_OCI_REGISTRY;
    if (env.PORCHLIGHT_OCI_USERNAME !== undefined || env.PORCHLIGHT_OCI_PASSWORD !== undefined) {
      if (!envRegistry) {
        throw new SourceError(
          "PORCHLIGHT_OCI_USERNAME/PORCHLIGHT_OCI_PASSWORD are set but PORCHLIGHT_OCI_REGISTRY is not: name the registry host they are for",
        );
      }
      if (envRegistry === registry) {
        return { username: env.PORCHLIGHT_OCI_USERNAME ?? "", password: env.PORCHLIGHT_OCI_PASSWORD ?? "" };
      }
    }
    config ??= load();
    const c = await config;
    for (const key of configKeys(registry)) {
      const helper = c.credHelpers?.[key];
      if (helper) return runHelper(helper, registry, env);
    }
    for (const key of configKeys(registry)) {
      const entry = c.auths?.[key];
      if (!entry) continue;
      if (entry.auth) return decodeAuth(entry.auth, file, key);
      if (entry.username !== undefined) return { username: entry.username, password: entry.password ?? "" };
    }
    if (c.credsStore) return runHelper(c.credsStore, registry, env);
    return undefined;
  };
}
