import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse, parseAllDocuments, parseDocument } from "yaml";
import { checkServeEnv } from "../../src/cli/serve-env.js";
import { kubeconform } from "../../src/fn/builtins/kubeconform.js";
import type { ResourceList } from "../../src/fn/types.js";
import { docBlock, docBlocks, PROJECT } from "../util/doc-blocks.js";

/** The YAML blocks of docs/scaling.md holding Kubernetes resources: the app and its Redis. */
function manifests(): string[] {
  return docBlocks("docs/scaling.md", "apiVersion: apps/v1").map((b) => b.text);
}

describe("docs/scaling.md's Kubernetes manifests", () => {
  it("are valid for kubeconform's built-in schemas, strictly (no unknown field)", async () => {
    const blocks = manifests();
    const items = blocks.flatMap((block) => parseAllDocuments(block));
    const rl: ResourceList = {
      items,
      results: [],
      functionConfig: parseDocument(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {strict: 'true'}\n",
      ),
    };

    const results = (await kubeconform.run(rl, {})).results;

    expect(items.map((d) => d.get("kind"))).toEqual(["Deployment", "Service", "StatefulSet", "Service"]);
    expect(results.filter((r) => r.severity === "error")).toEqual([]);
  });

  it("run the app's entry point with the settings serve reads, as the compose file does", () => {
    const compose = parse(docBlock("docs/scaling.md", "services:").text) as {
      services: { porchlight: { command: string[]; environment: Record<string, string> } };
    };
    const manifest = parseAllDocuments(manifests()[0] ?? "")[0]?.toJS() as {
      spec: {
        template: { spec: { containers: { command: string[]; env: { name: string; value?: string }[] }[] } };
      };
    };
    const container = manifest.spec.template.spec.containers[0];
    for (const command of [compose.services.porchlight.command, container?.command ?? []]) {
      expect(command.slice(0, 3)).toEqual(["node", "bin/porchlight.js", "serve"]);
      expect(existsSync(join(PROJECT, command[1] ?? ""))).toBe(true);
    }
    const env: Record<string, string> = { ...compose.services.porchlight.environment };
    for (const e of container?.env ?? []) if (e.value !== undefined) env[e.name] = e.value;
    expect(() => checkServeEnv(env)).not.toThrow();
  });
});
