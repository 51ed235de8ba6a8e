import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { main } from "../../src/cli/main.js";
import { type FileTree, treeFromText } from "../../src/kpt/tree.js";
import { RegistryClient } from "../../src/sources/oci/client.js";
import { pushPackage } from "../../src/sources/oci/package.js";
import { writeTarGz } from "../../src/sources/tar.js";
import { captureIO } from "../action/helpers.js";
import { type RpkgWorld, rpkgWorld } from "../cli/rpkg/world.js";
import { docBlock, shellSteps } from "../util/doc-blocks.js";
import { type FileServer, serveFiles } from "../util/file-server.js";
import { GIT_IDENTITY } from "../util/git-identity.js";
import { hasRegistry, REGISTRY_MISSING, startRegistry, type TestRegistry } from "../util/registry.js";

const basens = (ns: string, extra: Record<string, string> = {}) => ({
  Kptfile: "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: basens\n",
  "ns.yaml": `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${ns}\n`,
  ...extra,
});
const within = (dir: string, files: Record<string, string>) =>
  Object.fromEntries(Object.entries(files).map(([p, t]) => [`${dir}/${p}`, t]));

/** A command line of the page split as the shell splits it (single quotes only, as the page writes). */
const argv = (line: string) =>
  [...line.matchAll(/'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? "").filter((a) => a !== "");

/**
 * docs/sources.md's commands typed as written, against a registry (CNCF distribution) and a tarball
 * server on loopback, with ghcr.io, example.com and github.com filled in as those: images, tarballs,
 * digests and sha256 pins made to exist, a local git repository for the `pkg` flow, the forge for
 * `rpkg`.
 */
describe.skipIf(!hasRegistry)(`docs/sources.md's commands ${REGISTRY_MISSING ?? ""}`, () => {
  let w: RpkgWorld;
  let registry: TestRegistry;
  let login: TestRegistry;
  let server: FileServer;
  const served = new Map<string, Buffer>();
  let web = "";
  const digests: Record<string, string> = {};

  const serve = async (path: string, tree: FileTree) => {
    const bytes = await writeTarGz(tree);
    served.set(path, bytes);
    return createHash("sha256").update(bytes).digest("hex");
  };
  let tarballPin = "";
  /** The page's hosts and elided values, as this world has them. */
  const fill = (line: string) =>
    line
      .replaceAll("ghcr.io", registry.host)
      .replaceAll("https://example.com", web)
      .replaceAll("https://github.com", `${web}/gh`)
      .replace(/@sha256:4f1c…e9/, `@${digests.blueprints}`)
      .replace(/#sha256=9b2e…01/, `#sha256=${tarballPin}`);

  /**
   * rpkg acts as a server would: it reaches a repository's sources only within the egress policy, and this
   * world's registry and web server are on loopback, which the operator allows here as one would an
   * internal registry (the page's ghcr.io and example.com are public addresses).
   */
  const allowed = () => ({
    env: { PORCHLIGHT_EGRESS_ALLOW: `${registry.host} ${new URL(web).host}` },
  });

  /** `porchlight ARGS` in-process, in `cwd`, with `env`. */
  const cli = async (args: string[], cwd: string, env: Record<string, string> = {}) => {
    const io = captureIO({ cwd, env: { PATH: process.env.PATH ?? "", ...env } });
    const code = await main(args, io);
    return { code, stdout: io.out(), stderr: io.err() };
  };
  /** A line of the page, filled in for this world, run in `cwd`. */
  const run = async (line: string, cwd: string) => {
    const [bin, ...args] = argv(fill(line));
    expect(bin).toBe("porchlight");
    return { line, ...(await cli(args, cwd)) };
  };
  /** A user's working repository, where `pkg get` then `pkg update` run (kpt's flow needs git). */
  const workdir = (name: string) => {
    const dir = join(w.tmp, name);
    mkdirSync(dir, { recursive: true });
    execFileSync("git", ["init", "-q", "-b", "main"], { cwd: dir });
    return dir;
  };
  const commit = (dir: string) => {
    const env = { ...process.env, ...GIT_IDENTITY };
    execFileSync("git", ["add", "-A"], { cwd: dir, env });
    execFileSync("git", ["commit", "-qm", "get", "--allow-empty"], { cwd: dir, env });
  };

  beforeAll(async () => {
    [w, registry, login] = await Promise.all([
      rpkgWorld(),
      startRegistry(),
      startRegistry({ login: { username: "acme-bot", password: "s3cret" } }),
    ]);
    server = await serveFiles(served);
    web = server.base;
    const client = new RegistryClient(registry.host);
    const annotations = {
      "org.opencontainers.image.source": "https://github.com/acme/blueprints",
      "org.opencontainers.image.version": "v3",
      "org.opencontainers.image.title": "basens",
    };
    await pushPackage(client, "acme/packages/basens", "v3", treeFromText(basens("team-a")), annotations);
    await pushPackage(client, "acme/packages/basens", "v4", treeFromText(basens("team-b")), {});
    digests.blueprints = (
      await pushPackage(
        client,
        "acme/blueprints",
        "main",
        treeFromText(within("namespaces/basens", basens("team-a"))),
        {},
      )
    ).digest;
    await pushPackage(
      new RegistryClient(login.host, {
        credentials: async () => ({ username: "acme-bot", password: "s3cret" }),
      }),
      "acme/packages/basens",
      "v3",
      treeFromText(basens("team-a")),
      {},
    );
    tarballPin = await serve("/releases/basens-1.2.0.tar.gz", treeFromText(basens("team-a")));
    await serve("/releases/basens-1.3.0.tar.gz", treeFromText(basens("team-c")));
    await serve(
      "/gh/acme/blueprints/archive/refs/tags/v3.tar.gz",
      treeFromText(within("blueprints-3/basens", basens("team-a"))),
    );
    await serve("/releases/site-1.2.0.tar.gz", treeFromText(basens("site-a")));
    await serve("/releases/site-1.3.0.tar.gz", treeFromText(basens("site-b")));
  }, 120_000);
  afterAll(async () => {
    await w?.stop();
    await registry?.stop();
    await login?.stop();
    await server?.close();
  });

  it("pkg get from an image, a digest, a tarball and a directory of an archive; pkg diff and update; rpkg clone", async () => {
    const lines = shellSteps(
      docBlock(
        "docs/sources.md",
        "# an image or artifact, by tag (resolved to its digest and locked there) …",
      ),
    ).map((s) => s.line);
    expect(lines).toHaveLength(9);
    const [byTag, byDigest, tarball, archive, diff, update, updateTag, updateTarball, clone] = lines as [
      string,
      string,
      string,
      string,
      string,
      string,
      string,
      string,
      string,
    ];
    const fromImage = workdir("from-image");
    const results = [await run(byTag, fromImage)];
    commit(fromImage);
    results.push(await run(byDigest, workdir("from-digest")));
    const fromTarball = workdir("from-tarball");
    results.push(await run(tarball, fromTarball));
    commit(fromTarball);
    results.push(await run(archive, workdir("from-archive")));
    results.push(await run(diff, fromImage));
    results.push(await run(update, fromImage));
    results.push(await run(updateTag, fromImage));
    results.push(await run(updateTarball, fromTarball));
    results.push(
      await w.cli(w.alice, argv(fill(clone)).slice(1), allowed()).then((r) => ({ line: clone, ...r })),
    );
    expect(results.filter((r) => r.code !== 0)).toEqual([]);

    expect(readFileSync(join(fromImage, "basens/ns.yaml"), "utf8")).toContain("name: team-b");
    expect(readFileSync(join(w.tmp, "from-digest/basens/ns.yaml"), "utf8")).toContain("name: team-a");
    expect(readFileSync(join(w.tmp, "from-archive/basens/ns.yaml"), "utf8")).toContain("name: team-a");
    expect(readFileSync(join(fromTarball, "basens/ns.yaml"), "utf8")).toContain("name: team-c");
    // The Kptfile records the source as the page's next block shows it.
    const kptfile = parse(readFileSync(join(w.tmp, "from-digest/basens/Kptfile"), "utf8"));
    expect(kptfile.metadata.annotations["porchlight.dev/upstream-lock"]).toBe(
      `oci://${registry.host}/acme/blueprints//namespaces/basens@${digests.blueprints}`,
    );
  });

  it("rpkg upgrade of what was cloned from an image and from a tarball", async () => {
    // What the page's upgrade lines start from: team-ns (the clone above) and site, each published as v1.
    expect((await w.publish("acme/deploy", "deploy.team-ns.v1")).code).toBe(0);
    expect(
      (
        await w.rpkg(
          w.alice,
          ["clone", `${web}/releases/site-1.2.0.tar.gz`, "site", "--repository=acme/deploy"],
          allowed(),
        )
      ).code,
    ).toBe(0);
    expect((await w.publish("acme/deploy", "deploy.site.v1")).code).toBe(0);
    const lines = shellSteps(
      docBlock(
        "docs/sources.md",
        "porchlight rpkg upgrade team-ns/v1 --workspace=up --repository acme/deploy          # the tag again (:stable moved)",
      ),
    ).map((s) => s.line);
    expect(lines).toHaveLength(3);
    const [again, toV4, site] = lines as [string, string, string];
    const same = await w.cli(w.alice, argv(fill(again)).slice(1), allowed());
    expect(same).toMatchObject({
      code: 0,
      stdout: "deploy.team-ns.v1 is up to date with its upstream; no draft created\n",
    });
    expect(await w.cli(w.alice, argv(fill(toV4)).slice(1), allowed())).toMatchObject({
      code: 0,
      stdout: "deploy.team-ns.v1 upgraded to deploy.team-ns.up\n",
    });
    expect(await w.cli(w.alice, argv(fill(site)).slice(1), allowed())).toMatchObject({
      code: 0,
      stdout: "deploy.site.v1 upgraded to deploy.site.up\n",
    });
  });

  it("the environment's login for one registry, as CI gives it", async () => {
    const [line] = shellSteps(
      docBlock("docs/sources.md", "PORCHLIGHT_OCI_REGISTRY=ghcr.io PORCHLIGHT_OCI_USERNAME=$GITHUB_ACTOR \\"),
    ).map((s) => s.line);
    const words = argv((line ?? "").replaceAll("ghcr.io", login.host));
    const env = Object.fromEntries(
      words.filter((w) => /^[A-Z_]+=/.test(w)).map((w) => w.split("=", 2) as [string, string]),
    );
    expect(env).toEqual({
      PORCHLIGHT_OCI_REGISTRY: login.host,
      PORCHLIGHT_OCI_USERNAME: "$GITHUB_ACTOR",
      PORCHLIGHT_OCI_PASSWORD: "$GITHUB_TOKEN",
    });
    const [bin, ...args] = words.filter((w) => !/^[A-Z_]+=/.test(w));
    expect(bin).toBe("porchlight");
    const cwd = workdir("with-login");
    // Without the login the registry refuses; with the CI's values in those variables, it serves.
    expect((await cli(args, cwd)).code).not.toBe(0);
    const got = await cli(args, cwd, {
      ...env,
      PORCHLIGHT_OCI_USERNAME: "acme-bot",
      PORCHLIGHT_OCI_PASSWORD: "s3cret",
    });
    expect(got.stderr).toBe("");
    expect(got.code).toBe(0);
  });

  it("consuming a mirrored revision: pkg get it, and skopeo shows its annotations", async () => {
    const [get, inspect] = shellSteps(
      docBlock(
        "docs/sources.md",
        "porchlight pkg get oci://ghcr.io/acme/packages/basens:v3      # or kpt's flow: pkg get, edit, update",
      ),
    ).map((s) => s.line);
    expect((await run(get ?? "", workdir("consumer"))).code).toBe(0);
    const [tool, ...args] = argv(fill(inspect ?? ""));
    expect(tool).toBe("skopeo");
    // The local registry speaks plain HTTP: skopeo needs to be told so (ghcr.io needs no such flag).
    const manifest = JSON.parse(
      execFileSync("skopeo", [args[0] ?? "", "--tls-verify=false", ...args.slice(1)]).toString(),
    );
    expect(manifest.annotations["org.opencontainers.image.version"]).toBe("v3");
  });
});
