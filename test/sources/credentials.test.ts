import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { dockerCredentials } from "../../src/sources/oci/credentials.js";

const dir = mkdtempSync(join(tmpdir(), "porchlight-creds-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function config(name: string, json: unknown): string {
  const d = join(dir, name);
  rmSync(d, { recursive: true, force: true });
  mkdirSync(d);
  writeFileSync(join(d, "config.json"), typeof json === "string" ? json : JSON.stringify(json));
  return d;
}

describe("registry credentials for the command line", () => {
  it("reads auths by host, by https:// URL, with username/password, and Docker Hub's historical key", async () => {
    const d = config("auths", {
      auths: {
        "ghcr.io": { auth: Buffer.from("gh:token:with:colons").toString("base64") },
        "https://registry.example.com": { username: "u", password: "p" },
        "https://index.docker.io/v1/": { auth: Buffer.from("hub:pw").toString("base64") },
      },
    });
    const lookup = dockerCredentials({ DOCKER_CONFIG: d });
    expect(await lookup("ghcr.io")).toEqual({ username: "gh", password: "token:with:colons" });
    expect(await lookup("registry.example.com")).toEqual({ username: "u", password: "p" });
    expect(await lookup("docker.io")).toEqual({ username: "hub", password: "pw" });
    expect(await lookup("quay.io")).toBeUndefined();
  });

  it("asks a credential helper (credHelpers, then credsStore), with the registry on stdin", async () => {
    const bin = join(dir, "bin");
    mkdirSync(bin, { recursive: true });
    const helper = join(bin, "docker-credential-fake");
    writeFileSync(
      helper,
      '#!/bin/sh\nread host\nif [ "$host" = "missing.example" ]; then echo "credentials not found in native keychain"; exit 1; fi\nprintf \'{"ServerURL":"%s","Username":"helper-%s","Secret":"s3cret"}\' "$host" "$host"\n',
    );
    chmodSync(helper, 0o755);
    const d = config("helpers", { credHelpers: { "ghcr.io": "fake" }, credsStore: "fake" });
    const lookup = dockerCredentials({ DOCKER_CONFIG: d, PATH: `${bin}:${process.env.PATH}` });
    expect(await lookup("ghcr.io")).toEqual({ username: "helper-ghcr.io", password: "s3cret" });
    expect(await lookup("other.example")).toEqual({ username: "helper-other.example", password: "s3cret" });
    expect(await lookup("missing.example")).toBeUndefined();
  });

  it("takes the environment's login for the registry it names only, and refuses one without a registry", async () => {
    const env = {
      HOME: dir,
      PORCHLIGHT_OCI_REGISTRY: "ghcr.io",
      PORCHLIGHT_OCI_USERNAME: "ci",
      PORCHLIGHT_OCI_PASSWORD: "t",
    };
    expect(await dockerCredentials(env)("ghcr.io")).toEqual({ username: "ci", password: "t" });
    expect(await dockerCredentials(env)("evil.example")).toBeUndefined();
    await expect(dockerCredentials({ HOME: dir, PORCHLIGHT_OCI_USERNAME: "ci" })("ghcr.io")).rejects.toThrow(
      /PORCHLIGHT_OCI_REGISTRY is not: name the registry host/,
    );
  });

  it("names the config file that is not JSON", async () => {
    const d = config("broken", "{ nope");
    await expect(dockerCredentials({ DOCKER_CONFIG: d })("ghcr.io")).rejects.toThrow(
      new RegExp(`${join(d, "config.json")}: not valid JSON`),
    );
  });

  it("names the field of a config file that is JSON of another shape", async () => {
    const d = config("shape", JSON.stringify({ auths: { "ghcr.io": { auth: 42 } } }));
    await expect(dockerCredentials({ DOCKER_CONFIG: d })("ghcr.io")).rejects.toThrow(
      new RegExp(
        `${join(d, "config.json")}: auths\\.ghcr\\.io\\.auth: .*; fix it or point DOCKER_CONFIG elsewhere`,
      ),
    );
  });
});
