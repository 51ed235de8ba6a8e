import { execFile } from "node:child_process";
import { copyFileSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { apiCommand, startPorchApiIn } from "../../src/cli/api.js";
import { rememberedPort, rememberPort } from "../../src/cli/remembered-ports.js";
import { captureIO } from "../util/cli-io.js";
import { KUBECTL_MISSING } from "../util/kubectl.js";
import { useTempDir } from "../util/temp-dirs.js";
import { startServe } from "./serving.js";

const kubectl = (kubeconfig: string, args: string[], home: string) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
    execFile(
      "kubectl",
      args,
      { env: { PATH: process.env.PATH ?? "", KUBECONFIG: kubeconfig, HOME: home } },
      (err, stdout, stderr) => resolve({ code: err ? 1 : 0, stdout, stderr }),
    ),
  );

/** `porchlight serve --data DIR` until Porch's API is served and its kubeconfigs written. */
async function serveData(data: string) {
  const served = await startServe(["--data", data], { PORCHLIGHT_RECONCILE_INTERVAL_MS: "0" });
  return {
    api: /Porch's API, for kubectl: (\S+)/.exec(served.out)?.[1] ?? "",
    kubeconfig: /export KUBECONFIG=(\S+)/.exec(served.out)?.[1] ?? "",
    stop: served.stop,
  };
}

describe.skipIf(KUBECTL_MISSING !== undefined)("Porch's API of a data folder, across restarts", () => {
  const data = useTempDir("porchlight-api-port-");
  const home = useTempDir("porchlight-kube-home-");

  it("listens on the port it had, so the kubeconfigs keep their bytes and a copy made before still works with kubectl", async () => {
    const first = await serveData(data);
    const bytes = readFileSync(first.kubeconfig);
    const copy = join(home, "copied.yaml");
    copyFileSync(first.kubeconfig, copy);
    await first.stop();

    const second = await serveData(data);
    try {
      expect(second.api).toBe(first.api);
      expect(readFileSync(second.kubeconfig).equals(bytes)).toBe(true);
      const r = await kubectl(copy, ["get", "packagerevisions", "-n", "acme", "-o", "name"], home);
      expect(r.stderr).toBe("");
      expect(r.stdout).toContain("packagerevision.porch.kpt.dev/blueprints.hello.v1\n");
    } finally {
      await second.stop();
    }
  }, 240_000);
});

/** `porchlight api ARGS` until it has written its kubeconfig; `stop()` sends SIGTERM. */
async function api(args: string[]) {
  const io = captureIO({ env: { GH_TOKEN: "ghp_kept" } });
  const running = apiCommand(args, io);
  while (!io.out().includes("export KUBECONFIG")) await new Promise((r) => setImmediate(r));
  return {
    url: /Porch's API at (\S+)/.exec(io.out())?.[1] ?? "",
    async stop() {
      process.emit("SIGTERM");
      expect(await running).toBe(0);
    },
  };
}

describe("porchlight api --data DIR", () => {
  const data = useTempDir("porchlight-api-data-");

  it("keeps its certificate and port in DIR: the kubeconfig it writes is the same after a restart", async () => {
    const kubeconfig = join(data, "kubeconfig.yaml");
    const common = ["--data", data, "--kubeconfig", kubeconfig, "--api-url", "http://127.0.0.1:1/api/v3"];
    const first = await api([...common, "--port", "0"]);
    const bytes = readFileSync(kubeconfig);
    await first.stop();
    const second = await api(common);
    await second.stop();
    expect(second.url).toBe(first.url);
    expect(readFileSync(kubeconfig).equals(bytes)).toBe(true);
  });
});

describe("the API port a data folder remembers", () => {
  const data = useTempDir("porchlight-api-busy-");
  let busy: Server | undefined;
  afterAll(() => new Promise<void>((resolve) => (busy ? busy.close(() => resolve()) : resolve())));

  it("is kept beside the forge's, and given up for another free port when something else took it", async () => {
    rememberPort(data, "forgePort", "http://127.0.0.1:41234");
    const held = createServer();
    busy = held;
    await new Promise<void>((resolve) => held.listen(0, "127.0.0.1", resolve));
    const taken = (held.address() as { port: number }).port;
    rememberPort(data, "apiPort", `https://127.0.0.1:${taken}`);
    expect(rememberedPort(data, "forgePort", "serve")).toBe(41234);

    const start = { host: "127.0.0.1", apiUrl: "http://127.0.0.1:1/api/v3", env: {} };
    const server = await startPorchApiIn(start, data, { given: undefined, fallback: 0, command: "serve" });
    try {
      const port = Number(new URL(server.url).port);
      expect(port).not.toBe(taken);
      expect(rememberedPort(data, "apiPort", "serve")).toBe(port);
      expect(rememberedPort(data, "forgePort", "serve")).toBe(41234);
    } finally {
      await server.close();
    }
  });
});
