import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseAllDocuments, parseDocument } from "yaml";
import { kubeconform } from "../../src/fn/builtins/kubeconform.js";
import type { ResourceList } from "../../src/fn/types.js";

const DOC = new URL("../../docs/scaling.md", import.meta.url);

/** The YAML blocks of docs/scaling.md holding Kubernetes resources (the compose file is not one). */
function manifests(): string[] {
  const text = readFileSync(DOC, "utf8");
  return [...text.matchAll(/```yaml\n([\s\S]*?)```/g)]
    .map((m) => m[1] ?? "")
    .filter((block) => /^apiVersion:/m.test(block));
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
});
