import { existsSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "../..");

/** The source files `npm run build` compiles into dist/ (and so into the published package). */
function built(): string[] {
  const parsed = ts.getParsedCommandLineOfConfigFile(join(ROOT, "tsconfig.build.json"), undefined, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (d) => {
      throw new Error(ts.flattenDiagnosticMessageText(d.messageText, "\n"));
    },
  });
  if (!parsed) throw new Error("tsconfig.build.json did not parse");
  return parsed.fileNames.map((f) => relative(ROOT, f));
}

describe("what the build ships", () => {
  it("leaves the development tools out of dist/, the kubeconform bundle generator among them", () => {
    const generator = "src/fn/builtins/kubeconform/tools/generate-bundle.ts";
    expect(existsSync(join(ROOT, generator))).toBe(true);
    const files = built();
    expect(files).toContain("src/cli/main.ts");
    expect(files).toContain("src/fn/builtins/kubeconform/schemas/k8s-bundle.generated.ts");
    expect(files.filter((f) => f.includes("/tools/"))).toEqual([]);
  });
});
