import { isMap } from "yaml";
import type { PackageVariant } from "./schema.js";
import { getString, readYamlFile, setIfChanged, VariantMutationError, writeYamlFile } from "./yaml-files.js";

export const PACKAGE_CONTEXT_FILE = "package-context.yaml";
export const PACKAGE_CONTEXT_NAME = "kptfile.kpt.dev";

/**
 * Puts the variant's package context into the `kptfile.kpt.dev` ConfigMap of `package-context.yaml`, as
 * Porch does: `name` is the downstream package's name, every key of `packageContext.data` set, every key
 * of `removeKeys` gone, other keys untouched.
 * Porch fails when the file is missing; porchlight creates it the way `kpt pkg get --for-deployment` does,
 * so a variant works on a package cloned without it. Returns the new text and what changed.
 */
export function applyPackageContext(
  text: string | undefined,
  variant: PackageVariant,
): { text: string | undefined; changes: string[] } {
  const pc = variant.spec.packageContext;
  const data = pc?.data ?? {};
  const removeKeys = pc?.removeKeys ?? [];
  const name = variant.spec.downstream.package.split("/").at(-1) ?? variant.spec.downstream.package;
  if (Object.keys(data).length === 0 && removeKeys.length === 0 && text === undefined)
    return { text, changes: [] };
  const changes: string[] = [];
  let source = text;
  if (source === undefined) {
    source = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${PACKAGE_CONTEXT_NAME}\n  annotations:\n    config.kubernetes.io/local-config: "true"\ndata:\n  name: ${name}\n`;
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
  // The package context names the package it is in, as Porch sets it: the downstream's name, not the
  // upstream's it was cloned with.
  if (setIfChanged(doc, ["data", "name"], name)) changes.push(`set package context name=${name}`);
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
