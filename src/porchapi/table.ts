import type { ApiResource, KubeObject } from "./resources.js";

/**
 * `kubectl get`'s answer: a meta.k8s.io/v1 Table of the resource's printer columns (Porch's), one row
 * an object, each row carrying the object's metadata (or the whole object, or nothing, as
 * `includeObject` asks).
 */
export type IncludeObject = "None" | "Metadata" | "Object";

/** Whether the Accept header asks for a Table (`as=Table;g=meta.k8s.io;v=v1`) before plain JSON. */
export function wantsTable(accept: string | undefined): boolean {
  for (const part of (accept ?? "").split(",")) {
    const params = part.split(";").map((p) => p.trim());
    if (params.includes("as=Table") && params.includes("g=meta.k8s.io") && params.includes("v=v1"))
      return true;
    if (params[0] === "application/json" && params.length === 1) return false;
  }
  return false;
}

export function includeObjectOf(raw: string | null): IncludeObject {
  return raw === "None" || raw === "Object" ? raw : "Metadata";
}

function rowObject(obj: KubeObject, include: IncludeObject): Record<string, unknown> {
  if (include === "Object") return { object: obj };
  if (include === "None") return {};
  return {
    object: { kind: "PartialObjectMetadata", apiVersion: "meta.k8s.io/v1", metadata: obj.metadata ?? {} },
  };
}

/** The table of `objects`, with its columns unless `noHeaders`. */
export function toTable(
  r: ApiResource,
  objects: readonly KubeObject[],
  opts: { include: IncludeObject; resourceVersion: string; noHeaders?: boolean },
): Record<string, unknown> {
  return {
    kind: "Table",
    apiVersion: "meta.k8s.io/v1",
    metadata: { resourceVersion: opts.resourceVersion },
    ...(opts.noHeaders
      ? {}
      : {
          columnDefinitions: r.columns.map((c, i) => ({
            name: c.name,
            type: c.type,
            format: i === 0 ? "name" : "",
            description: c.description,
            priority: c.priority ?? 0,
          })),
        }),
    rows: objects.map((o) => ({ cells: r.columns.map((c) => c.cell(o)), ...rowObject(o, opts.include) })),
  };
}
