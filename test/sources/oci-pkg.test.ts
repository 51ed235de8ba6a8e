import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { treeFromText } from "../../src/kpt/tree.js";
import { RegistryClient } from "../../src/sources/oci/client.js";
import { pushPackage } from "../../src/sources/oci/package.js";
import { writeTarGz } from "../../src/sources/tar.js";
import { git, porchlightWith, Sandbox } from "../cli/pkg-fixture.js";
import { type FileServer, serveFiles } from "../util/file-server.js";
import { KPT_MISSING } from "../util/kpt.js";
import { hasRegistry, REGISTRY_MISSING, startRegistry, type TestRegistry } from "../util/registry.js";

const KPTFILE = "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: app\n";
const cm = (replicas: string, extra = "") =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\ndata:\n  replicas: "${replicas}"\n${extra}`;

const run = porchlightWith;

function sh(cwd: string, cmd: string, ...args: string[]): string {
  return execFileSync(cmd, args, { cwd, stdio: ["ignore", "pipe", "pipe"] }).toString();
}

// biome-ignore lint/suspicious/noExplicitAny: a Kptfile read as plain data
function kptfile(dir: string): any {
  return parse(readFileSync(join(dir, "Kptfile"), "utf8"));
}

describe.skipIf(!hasRegistry)(`pkg get|update|diff from a real registry ${REGISTRY_MISSING ?? ""}`, () => {
  let registry: TestRegistry;
  let box: Sandbox;
  let client: RegistryClient;

  beforeAll(async () => {
    registry = await startRegistry();
    box = new Sandbox();
    client = new RegistryClient(registry.host);
  });
  afterAll(async () => {
    await registry?.stop();
    box?.close();
  });

  it("reads an image built by umoci and pushed by skopeo, and records the digest skopeo sees", async () => {
    const work = box.dir("umoci");
    sh(work, "umoci", "init", "--layout", "layout");
    sh(work, "umoci", "new", "--image", "layout:v1");
    sh(work, "umoci", "unpack", "--rootless", "--image", "layout:v1", "bundle");
    mkdirSync(join(work, "bundle/rootfs/sub"), { recursive: true });
    writeFileSync(join(work, "bundle/rootfs/Kptfile"), KPTFILE);
    writeFileSync(join(work, "bundle/rootfs/cm.yaml"), cm("1"));
    writeFileSync(join(work, "bundle/rootfs/sub/notes.txt"), "hello\n");
    sh(work, "umoci", "repack", "--image", "layout:v1", "bundle");
    const dest = `docker://${registry.host}/umoci/app:v1`;
    sh(work, "skopeo", "copy", "--quiet", "--dest-tls-verify=false", "oci:layout:v1", dest);
    const inspected = JSON.parse(sh(work, "skopeo", "inspect", "--tls-verify=false", dest)) as {
      Digest: string;
    };

    const cwd = box.dir("consumer-umoci");
    const r = await run(cwd, {}, "pkg", "get", `oci://${registry.host}/umoci/app:v1`);

    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`(${inspected.Digest.slice(0, 19)}) into app`);
    expect(readFileSync(join(cwd, "app/sub/notes.txt"), "utf8")).toBe("hello\n");
    expect(readFileSync(join(cwd, "app/cm.yaml"), "utf8")).toContain('replicas: "1"');
    const kf = kptfile(join(cwd, "app"));
    expect(kf.metadata.annotations).toEqual({
      "porchlight.dev/upstream": `oci://${registry.host}/umoci/app:v1`,
      "porchlight.dev/upstream-lock": `oci://${registry.host}/umoci/app@${inspected.Digest}`,
    });
    expect(kf.upstream).toEqual({ updateStrategy: "resource-merge" });
    expect(kf.upstreamLock).toBeUndefined();
    if (!KPT_MISSING) sh(cwd, "kpt", "fn", "render", "app");
  });

  it("follows a floating tag: diff shows upstream's change, update merges it with the local edit, again is a no-op", async () => {
    await pushPackage(
      client,
      "pkgs/app",
      "stable",
      treeFromText({ Kptfile: KPTFILE, "cm.yaml": cm("1") }),
      {},
    );
    const cwd = box.dir("consumer-float", true);
    expect((await run(cwd, {}, "pkg", "get", `oci://${registry.host}/pkgs/app:stable`, "app")).code).toBe(0);
    const first = kptfile(join(cwd, "app")).metadata.annotations["porchlight.dev/upstream-lock"];
    writeFileSync(
      join(cwd, "app/cm.yaml"),
      `${readFileSync(join(cwd, "app/cm.yaml"), "utf8")}  local: edit\n`,
    );
    git(cwd, "add", "-A");
    git(cwd, "commit", "-qm", "local edit");

    const moved = await pushPackage(
      client,
      "pkgs/app",
      "stable",
      treeFromText({
        Kptfile: KPTFILE,
        "cm.yaml": cm("3"),
        "svc.yaml": "apiVersion: v1\nkind: Service\nmetadata:\n  name: app\n",
      }),
      {},
    );
    const diff = await run(cwd, {}, "pkg", "diff", "app");
    expect(diff.code).toBe(0);
    expect(diff.stdout).toContain("svc.yaml");

    const up = await run(cwd, {}, "pkg", "update", "app");
    expect(up.stderr).toBe("");
    expect(up.code).toBe(0);
    expect(up.stdout).toContain(`Updated to stable (${moved.digest.slice(0, 19)})`);
    const merged = readFileSync(join(cwd, "app/cm.yaml"), "utf8");
    expect(merged).toContain('replicas: "3"');
    expect(merged).toContain("local: edit");
    expect(existsSync(join(cwd, "app/svc.yaml"))).toBe(true);
    const annotations = kptfile(join(cwd, "app")).metadata.annotations;
    expect(annotations["porchlight.dev/upstream"]).toBe(`oci://${registry.host}/pkgs/app:stable`);
    expect(annotations["porchlight.dev/upstream-lock"]).toBe(
      `oci://${registry.host}/pkgs/app@${moved.digest}`,
    );
    expect(annotations["porchlight.dev/upstream-lock"]).not.toBe(first);
    if (!KPT_MISSING) sh(cwd, "kpt", "fn", "render", "app");

    git(cwd, "add", "-A");
    git(cwd, "commit", "-qm", "update");
    const again = await run(cwd, {}, "pkg", "update", "app");
    expect(again.code).toBe(0);
    expect(git(cwd, "status", "--porcelain")).toBe("");
  });

  it("reads a directory inside the image at a digest, and refuses a directory without a Kptfile", async () => {
    const { digest } = await pushPackage(
      client,
      "pkgs/blueprints",
      "v1",
      treeFromText({ "base/Kptfile": KPTFILE, "base/cm.yaml": cm("2"), "README.md": "top\n" }),
      {},
    );
    const cwd = box.dir("consumer-dir");
    const r = await run(cwd, {}, "pkg", "get", `oci://${registry.host}/pkgs/blueprints//base@${digest}`);
    expect(r.code).toBe(0);
    expect(readFileSync(join(cwd, "base/cm.yaml"), "utf8")).toContain('replicas: "2"');
    expect(kptfile(join(cwd, "base")).metadata.annotations["porchlight.dev/upstream"]).toBe(
      `oci://${registry.host}/pkgs/blueprints//base@${digest}`,
    );

    const bad = await run(cwd, {}, "pkg", "get", `oci://${registry.host}/pkgs/blueprints//nope:v1`, "nope");
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("no layer holds a package (a tar or tar+gzip layer with nope/Kptfile)");
    expect(existsSync(join(cwd, "nope"))).toBe(false);
  });

  it("updates a package whose Kptfile uses kpt's upstream.oci shape, keeping that shape", async () => {
    const v1 = await pushPackage(
      client,
      "pkgs/kptshape",
      "v1",
      treeFromText({ Kptfile: KPTFILE, "cm.yaml": cm("1") }),
      {},
    );
    const v2 = await pushPackage(
      client,
      "pkgs/kptshape",
      "v2",
      treeFromText({ Kptfile: KPTFILE, "cm.yaml": cm("2") }),
      {},
    );
    const cwd = box.dir("consumer-kptshape");
    mkdirSync(join(cwd, "app"));
    const image = `${registry.host}/pkgs/kptshape`;
    writeFileSync(
      join(cwd, "app/Kptfile"),
      `${KPTFILE}upstream:\n  type: oci\n  oci:\n    image: ${image}:v1\nupstreamLock:\n  type: oci\n  oci:\n    image: ${image}@${v1.digest}\n`,
    );
    writeFileSync(join(cwd, "app/cm.yaml"), cm("1"));
    const r = await run(cwd, {}, "pkg", "update", "app@v2", "--allow-dirty");
    expect(r.stderr).toBe("");
    expect(readFileSync(join(cwd, "app/cm.yaml"), "utf8")).toContain('replicas: "2"');
    const kf = kptfile(join(cwd, "app"));
    expect(kf.upstream.oci.image).toBe(`${image}:v2`);
    expect(kf.upstreamLock.oci.image).toBe(`${image}@${v2.digest}`);
  });

  it("logs in with the Docker config file or the environment, and says how when it cannot", async () => {
    const locked = await startRegistry({ login: { username: "alice", password: "s3cret" } });
    try {
      const authed = new RegistryClient(locked.host, {
        credentials: async () => ({ username: "alice", password: "s3cret" }),
      });
      await pushPackage(
        authed,
        "private/app",
        "v1",
        treeFromText({ Kptfile: KPTFILE, "cm.yaml": cm("1") }),
        {},
      );
      const cwd = box.dir("consumer-auth");
      const src = `oci://${locked.host}/private/app:v1`;

      const none = await run(cwd, { HOME: cwd }, "pkg", "get", src, "none");
      expect(none.code).toBe(1);
      expect(none.stderr).toContain(`no credentials for ${locked.host}: run docker login ${locked.host}`);
      expect(existsSync(join(cwd, "none"))).toBe(false);

      const dockerConfig = box.dir("docker-config");
      const auth = Buffer.from("alice:s3cret").toString("base64");
      writeFileSync(
        join(dockerConfig, "config.json"),
        JSON.stringify({ auths: { [locked.host]: { auth } } }),
      );
      expect((await run(cwd, { DOCKER_CONFIG: dockerConfig }, "pkg", "get", src, "viaconfig")).code).toBe(0);

      const env = {
        HOME: cwd,
        PORCHLIGHT_OCI_REGISTRY: locked.host,
        PORCHLIGHT_OCI_USERNAME: "alice",
        PORCHLIGHT_OCI_PASSWORD: "s3cret",
      };
      expect((await run(cwd, env, "pkg", "get", src, "viaenv")).code).toBe(0);
      expect(readFileSync(join(cwd, "viaenv/cm.yaml"), "utf8")).toContain("replicas");
    } finally {
      await locked.stop();
    }
  });
});

describe("pkg get|update from an https tarball", () => {
  let box: Sandbox;
  let server: FileServer;
  const served = new Map<string, Buffer>();

  beforeAll(async () => {
    box = new Sandbox();
    server = await serveFiles(served);
  });
  afterAll(async () => {
    box?.close();
    await server?.close();
  });

  it("fetches a tarball made by tar(1) pinned by sha256, refuses a wrong pin, and updates to a new URL", async () => {
    const src = box.dir("tarsrc/pkg-1.0");
    writeFileSync(join(src, "Kptfile"), KPTFILE);
    writeFileSync(join(src, "cm.yaml"), cm("1"));
    served.set("/pkg-1.0.tar.gz", Buffer.from(execFileSync("tar", ["czf", "-", "-C", src, "."])));
    served.set("/pkg-2.0.tgz", await writeTarGz(treeFromText({ Kptfile: KPTFILE, "cm.yaml": cm("2") })));
    const sha1 = createHash("sha256")
      .update(served.get("/pkg-1.0.tar.gz") ?? "")
      .digest("hex");
    const { base } = server;
    const cwd = box.dir("consumer-tar", true);

    const wrong = await run(
      cwd,
      {},
      "pkg",
      "get",
      `${base}/pkg-1.0.tar.gz#sha256=${"0".repeat(64)}`,
      "wrong",
    );
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain(`not the pinned sha256:${"0".repeat(64)}; refusing it`);
    expect(existsSync(join(cwd, "wrong"))).toBe(false);

    const r = await run(cwd, {}, "pkg", "get", `${base}/pkg-1.0.tar.gz#sha256=${sha1}`);
    expect(r.stderr).toBe("");
    expect(r.stdout).toContain("into pkg-1.0");
    const annotations = kptfile(join(cwd, "pkg-1.0")).metadata.annotations;
    expect(annotations["porchlight.dev/upstream"]).toBe(`${base}/pkg-1.0.tar.gz#sha256=${sha1}`);
    expect(annotations["porchlight.dev/upstream-lock"]).toBe(`${base}/pkg-1.0.tar.gz#sha256=${sha1}`);

    cpSync(join(cwd, "pkg-1.0"), join(cwd, "app"), { recursive: true });
    writeFileSync(
      join(cwd, "app/cm.yaml"),
      `${readFileSync(join(cwd, "app/cm.yaml"), "utf8")}  local: edit\n`,
    );
    git(cwd, "add", "-A");
    git(cwd, "commit", "-qm", "fetched");
    const up = await run(cwd, {}, "pkg", "update", `app@${base}/pkg-2.0.tgz`);
    expect(up.stderr).toBe("");
    const merged = readFileSync(join(cwd, "app/cm.yaml"), "utf8");
    expect(merged).toContain('replicas: "2"');
    expect(merged).toContain("local: edit");
    expect(kptfile(join(cwd, "app")).metadata.annotations["porchlight.dev/upstream"]).toBe(
      `${base}/pkg-2.0.tgz`,
    );
  });
});
