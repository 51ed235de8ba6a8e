import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { runFn } from "./harness.js";

const EXAMPLE = join(import.meta.dirname, "../../examples/hello-world");

describe("examples/hello-world", () => {
  it("renders to stdout with the builtin pipeline, files untouched", async () => {
    const run = await runFn(["render", EXAMPLE, "--output", "stdout"], process.cwd());
    expect(run.code, run.stderr).toBe(0);
    const [list] = parseAllDocuments(run.stdout);
    const items = list?.toJS().items as {
      kind: string;
      metadata: { namespace?: string; labels?: Record<string, string> };
    }[];
    const deployment = items.find((i) => i.kind === "Deployment");
    expect(deployment?.metadata.namespace).toBe("hello");
    expect(deployment?.metadata.labels?.["app.kubernetes.io/part-of"]).toBe("hello-world");
    const setter = (name: string) => `\${${name}}`;
    expect(run.stdout).toContain(`replicas: 2 # kpt-set: ${setter("replicas")}`);
    expect(run.stdout).toContain(
      `image: nginxdemos/hello:plain-text # kpt-set: ${setter("image")}:${setter("tag")}`,
    );
    expect(run.stderr).toContain('[PASS] "gcr.io/kpt-fn/kubeconform:v0.1.1"');
  });
});
