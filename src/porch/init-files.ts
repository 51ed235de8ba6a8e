import { stringify } from "yaml";
import type { FileTree } from "../kpt/tree.js";

export interface InitInput {
  /** The package's directory name (the last part of its path). */
  name: string;
  description?: string;
  keywords?: string[];
  site?: string;
}

/** The files `kpt pkg init` writes (and Porch's init task with it): Kptfile, package-context.yaml, README.md. */
export function initFiles(input: InitInput): FileTree {
  const info: Record<string, unknown> = {};
  if (input.site) info.site = input.site;
  info.description = input.description || "sample description";
  if (input.keywords && input.keywords.length > 0) info.keywords = input.keywords;
  const kptfile = {
    apiVersion: "kpt.dev/v1",
    kind: "Kptfile",
    metadata: { name: input.name, annotations: { "config.kubernetes.io/local-config": "true" } },
    info,
  };
  const context = {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: {
      name: "kptfile.kpt.dev",
      annotations: { "config.kubernetes.io/local-config": "true" },
    },
    data: { name: "example" },
  };
  const yaml = (v: unknown) => stringify(v, { indentSeq: false, lineWidth: 0 });
  return new Map([
    ["Kptfile", Buffer.from(yaml(kptfile))],
    ["README.md", Buffer.from(readme(input.name, info.description as string))],
    ["package-context.yaml", Buffer.from(yaml(context))],
  ]);
}

function readme(name: string, description: string): string {
  return `# ${name}

## Description
${description}

## Usage

### Fetch the package
\`kpt pkg get REPO_URI[.git]/PKG_PATH[@VERSION] ${name}\`
Details: https://kpt.dev/reference/cli/pkg/get/

### View package content
\`kpt pkg tree ${name}\`
Details: https://kpt.dev/reference/cli/pkg/tree/

### Apply the package
\`\`\`
kpt live init ${name}
kpt live apply ${name} --reconcile-timeout=2m --output=table
\`\`\`
Details: https://kpt.dev/reference/cli/live/
`;
}
