import { spawn, spawnSync } from "node:child_process";
import { eventually } from "./waits.js";

/**
 * The one answer to "can the tests drive the real kubectl here?", as test/util/kpt.ts answers for kpt:
 * CI sets PORCHLIGHT_REQUIRE_KUBECTL=1 (`.ci/run`), and then a missing kubectl fails the run at its start
 * (test/util/kpt-setup.ts) instead of letting the Porch API tests skip.
 */
const REQUIRE_KUBECTL_ENV = "PORCHLIGHT_REQUIRE_KUBECTL";

/** Why `kubectl` cannot run with this PATH, or undefined when `kubectl version --client` answers. */
export function whyNoKubectl(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const r = spawnSync("kubectl", ["version", "--client"], { stdio: "pipe", env, encoding: "utf8" });
  if (r.status === 0) return undefined;
  const said = r.error?.message ?? (r.stderr.trim() || `exit ${r.status}`);
  return `kubectl cannot run here (${said}): install kubectl (v1.32) to test Porch's API with it`;
}

/** The start of a test run: an Error naming the variable when kubectl is required and missing. */
export function kubectlGate(env: NodeJS.ProcessEnv, why: string | undefined): Error | undefined {
  const v = env[REQUIRE_KUBECTL_ENV]?.trim();
  if (why === undefined || v === undefined || v === "" || v === "0") return undefined;
  return new Error(`${REQUIRE_KUBECTL_ENV}=${v}: the tests with kubectl must run, but ${why}`);
}

/** Why kubectl cannot run in this test process (asked once), or undefined. */
export const KUBECTL_MISSING: string | undefined = whyNoKubectl();
if (KUBECTL_MISSING) console.warn(`skipping the tests with kubectl: ${KUBECTL_MISSING}`);

/** kubectl's client version line, as the tests print it. */
export function kubectlVersion(): string {
  const r = spawnSync("kubectl", ["version", "--client"], { stdio: "pipe", encoding: "utf8" });
  return r.stdout.split("\n")[0] ?? "";
}

/**
 * `kubectl get RESOURCE -w --output-watch-events` with `env` (its PATH, HOME and KUBECONFIG): a wait for
 * a text in what it has printed, the words of the line naming a text, and its stop.
 */
export function kubectlWatch(
  resource: string,
  env: NodeJS.ProcessEnv,
): { shows(text: string): Promise<void>; line(text: string): string[] | undefined; stop(): void } {
  const child = spawn("kubectl", ["get", resource, "-w", "--output-watch-events"], { env });
  let out = "";
  child.stdout.on("data", (c: Buffer) => {
    out += c.toString();
  });
  return {
    shows: (text) => eventually(`kubectl get ${resource} -w printing ${text}`, () => out.includes(text)),
    line: (text) =>
      out
        .split("\n")
        .find((l) => l.includes(text))
        ?.split(/\s+/),
    stop: () => child.kill(),
  };
}
