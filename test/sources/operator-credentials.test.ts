import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultConfig } from "../../src/config/resolve.js";
import { type MirrorAccess, mirrorRevision, scopedAccess } from "../../src/jobs/mirror/index.js";
import { operatorServicesFromEnv } from "../../src/jobs/operator-env.js";
import { SourceError } from "../../src/sources/errors.js";
import { noCredentials } from "../../src/sources/oci/credentials.js";
import { globMatch, OperatorCredentials } from "../../src/sources/oci/operator-credentials.js";
import { fakeRepoWith } from "../jobs/fake-repo.js";
import { codeBlock } from "../util/codeblock.js";
import { hasRegistry, REGISTRY_MISSING, startRegistry, type TestRegistry } from "../util/registry.js";

/** The registry access the app and the Action build from their environment. */
const accessFromEnv = (env: NodeJS.ProcessEnv, serverUrl?: string) =>
  operatorServicesFromEnv(env, { serverUrl }).mirror;

const b64 = (s: string) => Buffer.from(s).toString("base64");
const FILE = codeBlock`
  credentials:
    acme-ghcr:
      registry: ghcr.io
      auth: ${b64("acme-bot:s3cret")}
      repositories: ["acme/*"]
    infra-ghcr:
      registry: ghcr.io
      username: infra-bot
      password: t0ken
      repositories: ["acme-infra/deploy-*", "acme/blueprints"]
`;

describe("the operator's named registry credentials", () => {
  const creds = OperatorCredentials.parse(FILE, "/etc/porchlight/registries.yaml");

  it("matches owner/name globs segment by segment, ignoring case", () => {
    expect(globMatch("acme/*", "ACME/blueprints")).toBe(true);
    expect(globMatch("acme/*", "acme-infra/x")).toBe(false);
    expect(globMatch("acme-infra/deploy-*", "acme-infra/deploy-prod")).toBe(true);
    expect(globMatch("*/*", "anyone/anything")).toBe(true);
    expect(globMatch("acme/blue.prints", "acme/blueXprints")).toBe(false);
  });

  it("gives a repository the credential its config names, else the first it is allowed, else none", async () => {
    expect(await creds.lookupFor("acme/blueprints")("ghcr.io")).toEqual({
      username: "acme-bot",
      password: "s3cret",
    });
    expect(await creds.lookupFor("acme/blueprints", { "ghcr.io": "infra-ghcr" })("ghcr.io")).toEqual({
      username: "infra-bot",
      password: "t0ken",
    });
    expect(await creds.lookupFor("acme-infra/deploy-eu")("ghcr.io")).toMatchObject({ username: "infra-bot" });
    // another owner's repository gets nobody's login: anonymous
    expect(await creds.lookupFor("mallory/x")("ghcr.io")).toBeUndefined();
    expect(await creds.lookupFor("acme/blueprints")("quay.io")).toBeUndefined();
  });

  it("refuses a repository naming a credential it is not allowed, naming the field", async () => {
    const lookup = creds.lookupFor("mallory/x", { "ghcr.io": "acme-ghcr" });
    await expect(lookup("ghcr.io")).rejects.toThrow(
      '.github/porchlight.yml of mallory/x: registries.ghcr.io: the app\'s operator does not allow mallory/x to use the credential "acme-ghcr" (it is for acme/*); ask them to allow it, or name another',
    );
    expect(creds.refusal("acme/web", "ghcr.io", "nope")).toBe(
      'registries.ghcr.io: the app\'s operator defines no registry credential "nope" (for ghcr.io: acme-ghcr, infra-ghcr); ask them to add it, or remove the field',
    );
    expect(creds.refusal("acme/web", "quay.io", "acme-ghcr")).toBe(
      'registries.quay.io: the credential "acme-ghcr" is for ghcr.io, not quay.io',
    );
  });

  it.each([
    ["credentials: {Bad_Name: {registry: r, auth: x, repositories: [a/b]}}", "credentials.Bad_Name"],
    ["credentials: {a: {registry: ghcr.io, auth: x}}", "credentials.a.repositories"],
    ["credentials: {a: {registry: ghcr.io, repositories: [acme/*]}}", "give the login"],
    ["credentials: {a: {registry: ghcr.io/x, auth: x, repositories: [acme/*]}}", "credentials.a.registry"],
    ["credentials: {a: {registry: ghcr.io, auth: x, repositories: [acme]}}", "credentials.a.repositories.0"],
    [
      `credentials: {a: {registry: ghcr.io, auth: ${b64("nocolon")}, repositories: [acme/*]}}`,
      "credentials.a.auth",
    ],
  ])("refuses a bad file with its field: %s", (text, field) => {
    expect(() => OperatorCredentials.parse(text, "/etc/r.yaml")).toThrow(SourceError);
    expect(() => OperatorCredentials.parse(text, "/etc/r.yaml")).toThrow(field);
  });

  it("is read at start from PORCHLIGHT_REGISTRY_CREDENTIALS: a file that cannot be read stops the start", () => {
    const dir = mkdtempSync(join(tmpdir(), "porchlight-creds-"));
    try {
      const file = join(dir, "registries.yaml");
      writeFileSync(file, FILE);
      const access = accessFromEnv({
        PORCHLIGHT_REGISTRY_CREDENTIALS: file,
        PORCHLIGHT_OCI_REGISTRY: "ghcr.io",
      });
      expect(access.operator?.entries.map((e) => e.name)).toEqual(["acme-ghcr", "infra-ghcr"]);
      expect(() => accessFromEnv({ PORCHLIGHT_REGISTRY_CREDENTIALS: join(dir, "missing.yaml") })).toThrow(
        `PORCHLIGHT_REGISTRY_CREDENTIALS names ${join(dir, "missing.yaml")}, which cannot be read`,
      );
      writeFileSync(file, "credentials: {a: {registry: ghcr.io}}\n");
      expect(() => accessFromEnv({ PORCHLIGHT_REGISTRY_CREDENTIALS: file })).toThrow(
        `${file}: credentials.a`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("labels images with the GitHub the app serves: GitHub Enterprise or the forge, else the Action's server", () => {
    expect(accessFromEnv({}, "http://127.0.0.1:3000").serverUrl).toBe("http://127.0.0.1:3000");
    expect(accessFromEnv({ GITHUB_SERVER_URL: "https://ghe.corp" }).serverUrl).toBe("https://ghe.corp");
    expect(accessFromEnv({}).serverUrl).toBe("https://github.com");
  });

  it("without named credentials, a repository naming one is refused rather than given the operator's login", async () => {
    const env = { credentials: async () => ({ username: "operator", password: "x" }) };
    await expect(
      scopedAccess(env, "acme/web", { "ghcr.io": "acme-ghcr" }).credentials("ghcr.io"),
    ).rejects.toThrow(
      "registries.ghcr.io: the app's operator defines no named registry credentials (PORCHLIGHT_REGISTRY_CREDENTIALS)",
    );
    expect(await scopedAccess(env, "acme/web", {}).credentials("ghcr.io")).toMatchObject({
      username: "operator",
    });
  });
});

describe.skipIf(!hasRegistry)(
  `named credentials against a real registry with a login ${REGISTRY_MISSING ?? ""}`,
  () => {
    let registry: TestRegistry;
    let access: MirrorAccess;
    beforeAll(async () => {
      registry = await startRegistry({ login: { username: "acme-bot", password: "s3cret" } });
      const operator = OperatorCredentials.parse(
        codeBlock`
          credentials:
            acme-local:
              registry: ${registry.host}
              auth: ${b64("acme-bot:s3cret")}
              repositories: ["acme/*"]
        `,
        "registries.yaml",
      );
      access = { credentials: noCredentials, serverUrl: "https://github.com", operator };
    });
    afterAll(() => registry?.stop());

    const mirror = (full: string, registries: Record<string, string>) => {
      const port = fakeRepoWith(
        { "web/Kptfile": "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: web\n" },
        full,
      );
      const commit = port.refs.get("refs/heads/main") as string;
      const config = {
        ...defaultConfig(),
        publish: { oci: { repository: `${registry.host}/mirror/${full.split("/")[0]}` } },
        registries,
      };
      return mirrorRevision({ port, config, log: pino({ level: "silent" }) }, access, {
        package: "web",
        revision: 1,
        commit,
      });
    };

    it("a repository the operator allows pushes with the login; another owner's is refused or anonymous", async () => {
      expect(await mirror("acme/blueprints", {})).toMatchObject({ pushed: true });
      expect(await mirror("acme/other", { [registry.host]: "acme-local" })).toMatchObject({ pushed: true });
      // mallory's repository names acme's credential: refused, naming the field
      await expect(mirror("mallory/blueprints", { [registry.host]: "acme-local" })).rejects.toThrow(
        `registries.${registry.host}: the app's operator does not allow mallory/blueprints to use the credential "acme-local"`,
      );
      // naming none, it goes anonymously, and the registry refuses it
      await expect(mirror("mallory/blueprints", {})).rejects.toThrow(/401|unauthori[sz]ed|denied/i);
    });
  },
);
