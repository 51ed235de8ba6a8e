import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * A real OCI registry for the tests: CNCF distribution from Debian's `docker-registry` package, started
 * on a free loopback port with in-memory storage (and an htpasswd file for the auth cases). Where the
 * binary (or skopeo/umoci, or htpasswd) is missing the tests skip with `REGISTRY_MISSING` as their note;
 * CI sets `PORCHLIGHT_REQUIRE_REGISTRY=1` (.ci/run, which installs the packages), and then a missing
 * tool fails the test file instead of letting the tests lapse.
 */
const REQUIRE_REGISTRY_ENV = "PORCHLIGHT_REQUIRE_REGISTRY";

function onPath(cmd: string): boolean {
  try {
    execFileSync("sh", ["-c", `command -v ${cmd}`], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

const TOOLS = ["docker-registry", "skopeo", "umoci", "htpasswd"];
const missing = TOOLS.filter((t) => !onPath(t));
export const REGISTRY_MISSING: string | undefined =
  missing.length > 0
    ? `${missing.join(", ")} not installed (apt-get install docker-registry skopeo umoci apache2-utils)`
    : undefined;
const v = process.env[REQUIRE_REGISTRY_ENV]?.trim();
if (REGISTRY_MISSING && v !== undefined && v !== "" && v !== "0") {
  throw new Error(`${REQUIRE_REGISTRY_ENV}=${v}: the registry tests must run, but ${REGISTRY_MISSING}`);
}
if (REGISTRY_MISSING) console.warn(`skipping the OCI registry tests: ${REGISTRY_MISSING}`);
export const hasRegistry = REGISTRY_MISSING === undefined;

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.on("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const addr = s.address();
      const port = typeof addr === "object" && addr ? addr.port : 0;
      s.close(() => resolve(port));
    });
  });
}

export interface TestRegistry {
  /** `127.0.0.1:PORT` */
  host: string;
  stop(): Promise<void>;
}

export interface RegistryOptions {
  /** Require this login (Basic auth through an htpasswd file). */
  login?: { username: string; password: string };
}

async function waitUp(host: string, child: ChildProcess, log: () => string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (child.exitCode !== null) throw new Error(`docker-registry exited: ${log()}`);
    try {
      const res = await fetch(`http://${host}/v2/`);
      await res.body?.cancel();
      if (res.status === 200 || res.status === 401) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`docker-registry did not answer at ${host}: ${log()}`);
}

/** Starts a registry; a port taken between choosing and binding it (another test's) means another try. */
export async function startRegistry(opts: RegistryOptions = {}): Promise<TestRegistry> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(opts);
    } catch (err) {
      if (attempt >= 3 || !/address already in use/.test(String(err))) throw err;
    }
  }
}

async function startOnce(opts: RegistryOptions): Promise<TestRegistry> {
  const dir = mkdtempSync(join(tmpdir(), "porchlight-registry-"));
  const port = await freePort();
  const host = `127.0.0.1:${port}`;
  const auth = opts.login
    ? (() => {
        const line = execFileSync("htpasswd", ["-nbB", opts.login.username, opts.login.password]).toString();
        writeFileSync(join(dir, "htpasswd"), line.trim());
        return `auth:\n  htpasswd:\n    realm: test-registry\n    path: ${join(dir, "htpasswd")}\n`;
      })()
    : "";
  const config = [
    "version: 0.1",
    "log:\n  level: error\n  accesslog:\n    disabled: true",
    "storage:\n  inmemory: {}\n  delete:\n    enabled: true",
    `http:\n  addr: ${host}\n  secret: porchlight-test`,
    auth,
  ].join("\n");
  writeFileSync(join(dir, "config.yml"), config);
  const child = spawn("docker-registry", ["serve", join(dir, "config.yml")], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr?.on("data", (c: Buffer) => {
    stderr = (stderr + c.toString()).slice(-4000);
  });
  try {
    await waitUp(host, child, () => stderr);
  } catch (err) {
    child.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  return {
    host,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once("exit", r));
        child.kill("SIGTERM");
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
