import { UPSTREAM_ONLY_ANNOTATIONS } from "../catalog/annotations.js";
import {
  applyInjection,
  type InjectableResource,
  type InjectionPointResult,
  recordInjectionConditions,
} from "./injection.js";
import { applyPackageContext, PACKAGE_CONTEXT_FILE } from "./package-context.js";
import { applyPipeline } from "./pipeline-edit.js";
import type { PackageVariant } from "./schema.js";
import {
  DELETION_POLICY_ANNOTATION,
  MANAGED_BY_ANNOTATION,
  SPEC_HASH_ANNOTATION,
  variantSpecHash,
} from "./tracking.js";
import {
  checkObjects,
  isYamlPath,
  readYamlFile,
  setIfChanged,
  VariantMutationError,
  writeYamlFile,
  type YamlFile,
} from "./yaml-files.js";

const KPTFILE = "Kptfile";

/** One change a variant made, for the pull request body. */
export interface VariantChange {
  file: string;
  summary: string;
}

export interface MutationResult {
  /** The package after the mutations: every file, changed or not. */
  files: Map<string, string>;
  changes: VariantChange[];
  injection: InjectionPointResult[];
}

export interface MutationOptions {
  /**
   * `clone` when the downstream is being created: the variant's labels and annotations are written then
   * only, as Porch sets them only on the PackageRevision it creates and leaves later edits alone.
   */
  mode?: "clone" | "update";
}

/**
 * Applies a PackageVariant to a downstream package (relative path → file text, Kptfile included), in
 * Porch's order: package context, Kptfile pipeline additions, config injection; then the variant's labels
 * and annotations (on clone) and porchlight's tracking annotations on the Kptfile; the upstream's catalog
 * annotations (`porchlight.dev/channels`) are left out. Files are edited through
 * yaml Documents so comments survive; untouched files are returned byte for byte. Idempotent: applying
 * the same variant again changes nothing. A bad package throws VariantMutationError and nothing is returned.
 */
export function applyVariantMutations(
  files: ReadonlyMap<string, string>,
  variant: PackageVariant,
  injectedResources: readonly InjectableResource[] = [],
  options: MutationOptions = {},
): MutationResult {
  const kptfileText = files.get(KPTFILE);
  if (kptfileText === undefined)
    throw new VariantMutationError(KPTFILE, "the package has no Kptfile at its root");
  const out = new Map(files);
  const changes: VariantChange[] = [];
  const note = (file: string, summaries: string[]) => {
    for (const summary of summaries) changes.push({ file, summary });
  };

  const context = applyPackageContext(files.get(PACKAGE_CONTEXT_FILE), variant);
  if (context.text !== undefined && context.text !== files.get(PACKAGE_CONTEXT_FILE))
    out.set(PACKAGE_CONTEXT_FILE, context.text);
  note(PACKAGE_CONTEXT_FILE, context.changes);

  const kptfile = readYamlFile(KPTFILE, kptfileText);
  const kdoc = kptfile.docs[0];
  if (!kdoc || kptfile.docs.length !== 1)
    throw new VariantMutationError(KPTFILE, "must hold exactly one YAML document");
  note(KPTFILE, applyPipeline(kdoc, variant));

  const resourceFiles: YamlFile[] = [];
  for (const [path, text] of out) {
    if (path === KPTFILE || path.endsWith(`/${KPTFILE}`) || !isYamlPath(path)) continue;
    const file = readYamlFile(path, text);
    checkObjects(file);
    resourceFiles.push(file);
  }
  const injection = applyInjection(resourceFiles, variant, injectedResources);
  for (const file of resourceFiles)
    if (injection.changed.has(file.path)) out.set(file.path, writeYamlFile(file));
  changes.push(...injection.changes);
  note(KPTFILE, recordInjectionConditions(kdoc, injection.results));

  if (options.mode === "clone") {
    for (const [field, values] of [
      ["labels", variant.spec.labels],
      ["annotations", variant.spec.annotations],
    ] as const) {
      for (const [k, v] of Object.entries(values ?? {})) {
        if (setIfChanged(kdoc, ["metadata", field, k], v))
          changes.push({ file: KPTFILE, summary: `set ${field.slice(0, -1)} ${k}=${v}` });
      }
    }
  }
  for (const key of UPSTREAM_ONLY_ANNOTATIONS) {
    if (kdoc.hasIn(["metadata", "annotations", key])) {
      kdoc.deleteIn(["metadata", "annotations", key]);
      changes.push({
        file: KPTFILE,
        summary: `left out ${key}: the upstream's catalog metadata stays upstream`,
      });
    }
  }
  const tracking: Record<string, string> = {
    [MANAGED_BY_ANNOTATION]: variant.metadata.name,
    [DELETION_POLICY_ANNOTATION]: variant.spec.deletionPolicy,
    [SPEC_HASH_ANNOTATION]: variantSpecHash(variant),
  };
  for (const [k, v] of Object.entries(tracking)) setIfChanged(kdoc, ["metadata", "annotations", k], v);

  const newKptfile = writeYamlFile(kptfile);
  if (newKptfile !== kptfileText) out.set(KPTFILE, newKptfile);
  return { files: out, changes, injection: injection.results };
}
