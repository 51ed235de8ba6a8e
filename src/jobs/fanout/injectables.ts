import { parseAllDocuments } from "yaml";
import type { FileTree } from "../../kpt/tree.js";
import type { InjectableResource, PackageVariant } from "../../variants/index.js";

/**
 * The resources a variant's injectors may pick from. Porch looks them up in its cluster; porchlight reads
 * them from the downstream repository: every KRM resource in a YAML file outside the package itself
 * (read only when the variant has injectors).
 */
export function injectableResources(repoTree: FileTree, variant: PackageVariant): InjectableResource[] {
  if (!variant.spec.injectors?.length) return [];
  const pkg = `${variant.spec.downstream.package}/`;
  const out: InjectableResource[] = [];
  for (const [path, bytes] of repoTree) {
    if (path.startsWith(pkg) || !/\.ya?ml$/.test(path) || path.startsWith(".")) continue;
    for (const doc of parseAllDocuments(bytes.toString("utf8"))) {
      if (!("errors" in doc) || doc.errors.length) continue;
      const js = doc.toJS() as Partial<InjectableResource> | null;
      if (
        js &&
        typeof js.apiVersion === "string" &&
        typeof js.kind === "string" &&
        typeof js.metadata?.name === "string"
      )
        out.push(js as InjectableResource);
    }
  }
  return out;
}
