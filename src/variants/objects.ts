import { parseAllDocuments } from "yaml";
import { z } from "zod";
import { type LabelSelector, matchesLabels } from "./label-selector.js";

/**
 * The objects a PackageVariantSet's `objectSelector` selects from. Porch lists them in the set's
 * namespace of its cluster; porchlight reads them from the management repository's default branch, as
 * fan-out reads the resources injectors pick from: every KRM object in a YAML file outside dot-directories
 * (`.porchlight/`, `.github/`) and outside any package (a directory holding a Kptfile, which is no object
 * of the namespace but a package's content).
 */
export interface SelectableObject {
  apiVersion: string;
  kind: string;
  name: string;
  namespace?: string;
  labels: Readonly<Record<string, string>>;
  annotations: Readonly<Record<string, string>>;
  /** The file it was read from. */
  file: string;
}

const stringMap = z.record(z.string(), z.string());
const krmObject = z.looseObject({
  apiVersion: z.string().min(1),
  kind: z.string().min(1),
  metadata: z.looseObject({
    name: z.string().min(1),
    namespace: z.string().optional(),
    labels: stringMap.optional().catch(undefined),
    annotations: stringMap.optional().catch(undefined),
  }),
});

/** The selectable objects of a repository's files (path → text), in path order. */
export function selectableObjects(files: Iterable<readonly [string, string]>): SelectableObject[] {
  const all = [...files].sort(([a], [b]) => a.localeCompare(b));
  const packages = all
    .filter(([path]) => path === "Kptfile" || path.endsWith("/Kptfile"))
    .map(([path]) => path.slice(0, -"Kptfile".length));
  const out: SelectableObject[] = [];
  for (const [path, text] of all) {
    if (!/\.ya?ml$/.test(path) || path.split("/").some((s) => s.startsWith("."))) continue;
    if (packages.some((dir) => path.startsWith(dir))) continue;
    for (const doc of parseAllDocuments(text)) {
      if (!("errors" in doc) || doc.errors.length) continue;
      const parsed = krmObject.safeParse(doc.toJS());
      if (!parsed.success) continue;
      const { apiVersion, kind, metadata } = parsed.data;
      out.push({
        apiVersion,
        kind,
        name: metadata.name,
        ...(metadata.namespace ? { namespace: metadata.namespace } : {}),
        labels: metadata.labels ?? {},
        annotations: metadata.annotations ?? {},
        file: path,
      });
    }
  }
  return out;
}

export interface ObjectSelector extends LabelSelector {
  apiVersion: string;
  kind: string;
  name?: string | undefined;
}

/**
 * The objects an `objectSelector` picks, as Porch lists them in the set's namespace: of its apiVersion
 * and kind, named `name` when given, their labels matching its label selector. The management
 * repository is the namespace: its objects are selected whatever `metadata.namespace` they carry.
 */
export function selectObjects(
  selector: ObjectSelector,
  objects: readonly SelectableObject[],
): SelectableObject[] {
  return objects.filter(
    (o) =>
      o.apiVersion === selector.apiVersion &&
      o.kind === selector.kind &&
      (selector.name === undefined || o.name === selector.name) &&
      matchesLabels(selector, o.labels),
  );
}
