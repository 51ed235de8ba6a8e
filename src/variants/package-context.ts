import { isMap } from "yaml";
import { PACKAGE_CONTEXT_FILE, PACKAGE_CONTEXT_NAME, packageContextText } from "../kpt/package-context.js";
import type { PackageVariant } from "./schema.js";
import { getString, readYamlFile, setIfChanged, VariantMutationError, writeYamlFile } from "./yaml-files.js";

export { PACKAGE_CONTEXT_FILE };

/**
 * Puts the variant's package context into the `kptfile.kpt.dev` ConfigMap of `package-context.yaml`, as
 * Porch's PackageVariant does: every key of `packageContext.data` set, every key of `removeKeys` gone,
 * other keys (`name` among them) untouched. `data.name` names the downstream package where the clone made
 * it so: in a deployment repository (generatePackageContext, as Porch's clone task and
 * `kpt pkg get --for-deployment`); elsewhere it is the upstream's, as Porch and `kpt pkg get` leave it.
 * Porch fails when the file is missing and the variant has data for it; porchlight creates it the way
 * `kpt pkg get --for-deployment` does, so a variant works on a package cloned without it. Returns the new
 * text and what changed.
 */
export function applyPackageContext(
  text: string | undefined,
  variant: PackageVariant,
): { text: string | undefined; changes: string[] } {
  const pc = variant.spec.packageContext;
  const data = pc?.data ?? {};
  const removeKeys = pc?.removeKeys ?? [];
  const name = variant.spec.downstream.package.split("/").at(-1) ?? variant.spec.downstream.package;
  // Nothing to put there: the file is left as it is, as Porch leaves it.
  if (Object.keys(data).length === 0 && removeKeys.length === 0) return { text, changes: [] };
  const changes: string[] = [];
  let source = text;
  if (source === undefined) {
    source = packageContextText(name);
    changes.push(`created the package context ConfigMap ${PACKAGE_CONTEXT_NAME}`);
  }
  const file = readYamlFile(PACKAGE_CONTEXT_FILE, source);
  const doc = file.docs.find(
    (d) =>
      getString(d, ["kind"]) === "ConfigMap" && getString(d, ["metadata", "name"]) === PACKAGE_CONTEXT_NAME,
  );
  if (!doc) {
    throw new VariantMutationError(
      PACKAGE_CONTEXT_FILE,
      `does not contain the ConfigMap ${PACKAGE_CONTEXT_NAME} that packageContext writes to; restore it (kpt pkg get --for-deployment creates it)`,
    );
  }
  const current = doc.getIn(["data"], true);
  if (current !== undefined && current !== null && !isMap(current)) {
    throw new VariantMutationError(
      PACKAGE_CONTEXT_FILE,
      `data of ConfigMap ${PACKAGE_CONTEXT_NAME} must be a map of strings`,
    );
  }
  for (const [key, value] of Object.entries(data)) {
    if (setIfChanged(doc, ["data", key], value)) changes.push(`set package context ${key}=${value}`);
  }
  for (const key of removeKeys) {
    if (doc.hasIn(["data", key])) {
      doc.deleteIn(["data", key]);
      changes.push(`removed package context key ${key}`);
    }
  }
  return changes.length > 0 ? { text: writeYamlFile(file), changes } : { text, changes };
}
