import type { Document } from "yaml";
import { isMap, isSeq, type YAMLSeq } from "yaml";
import type { KptFunction } from "./kptfile-function.js";
import type { PackageVariant } from "./schema.js";

/** Prefix Porch gives the functions a PackageVariant adds to a Kptfile pipeline. */
const PACKAGE_VARIANT_FUNC_PREFIX = "PackageVariant";

/** `PackageVariant.<variant>.<function name>.<index>`, as Porch names the functions it adds. */
function variantFunctionName(variantName: string, functionName: string | undefined, index: number): string {
  return `${PACKAGE_VARIANT_FUNC_PREFIX}.${variantName}.${functionName ?? ""}.${index}`;
}

/** True for a function this variant added before (Porch's test: four dot-separated parts, ours, an index). */
function isVariantFunction(name: unknown, variantName: string): boolean {
  if (typeof name !== "string") return false;
  const parts = name.split(".");
  return (
    parts.length === 4 &&
    parts[0] === PACKAGE_VARIANT_FUNC_PREFIX &&
    parts[1] === variantName &&
    /^\d+$/.test(parts[3] ?? "")
  );
}

/**
 * Prepends the variant's mutators and validators to the Kptfile pipeline. Functions the variant added on an
 * earlier run are removed first, so a re-run replaces them rather than adding them twice; functions from
 * the upstream package or added by hand stay, after them, in their order. An emptied list, and then an
 * emptied pipeline, are removed as Porch does.
 */
export function applyPipeline(kptfile: Document, variant: PackageVariant): string[] {
  const changes: string[] = [];
  const name = variant.metadata.name;
  for (const field of ["mutators", "validators"] as const) {
    const wanted = (variant.spec.pipeline?.[field] ?? []).map((fn: KptFunction, i: number) => ({
      ...fn,
      name: variantFunctionName(name, fn.name, i),
    }));
    const existing = kptfile.getIn(["pipeline", field], true);
    const items = isSeq(existing) ? existing.items : [];
    const ours = items.filter((item) => isMap(item) && isVariantFunction(item.get("name"), name));
    const theirs = items.filter((item) => !ours.includes(item));
    const before = JSON.stringify(ours.map((i) => (isMap(i) ? i.toJSON() : i)));
    if (before === JSON.stringify(wanted) && ours.every((item, i) => items[i] === item)) continue;
    if (wanted.length + theirs.length === 0) {
      kptfile.deleteIn(["pipeline", field]);
    } else {
      const seq: YAMLSeq = isSeq(existing) ? existing : (kptfile.createNode([]) as YAMLSeq);
      seq.flow = false;
      seq.items = [...wanted.map((fn) => kptfile.createNode(fn)), ...theirs];
      if (!isSeq(existing)) kptfile.setIn(["pipeline", field], seq);
    }
    changes.push(
      wanted.length
        ? `set the ${field} the variant prepends: ${wanted.map((f) => f.image ?? f.exec).join(", ")}`
        : `removed the ${field} the variant had prepended`,
    );
  }
  const pipeline = kptfile.getIn(["pipeline"], true);
  if (isMap(pipeline) && pipeline.items.length === 0) kptfile.deleteIn(["pipeline"]);
  return changes;
}
