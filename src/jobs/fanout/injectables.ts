import { parseAllDocuments } from "yaml";
import { z } from "zod";
import type { FileTree } from "../../kpt/tree.js";
import type { InjectableResource, PackageVariant } from "../../variants/index.js";

/** A KRM resource as the injectors match it: a YAML document without these fields is no resource to inject. */
const krmResource = z.looseObject({
  apiVersion: z.string(),
  kind: z.string(),
  metadata: z.looseObject({ name: z.string() }),
});

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
      const resource = krmResource.safeParse(doc.toJS());
      if (resource.success) out.push(resource.data);
    }
  }
  return out;
}
