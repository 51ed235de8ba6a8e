import { createHash } from "node:crypto";
import { API_RESOURCES, type ApiResource, apiGroups } from "./resources.js";
import type { Schema } from "./schema-dsl.js";
import { AUTHORIZATION_SCHEMAS } from "./schemas-authorization.js";
import { CONFIG_SCHEMAS } from "./schemas-config.js";
import { META, META_SCHEMAS } from "./schemas-meta.js";
import { PORCH_SCHEMAS } from "./schemas-porch.js";
import { VARIANT_SCHEMAS } from "./schemas-variants.js";

/**
 * The OpenAPI documents (v3 per group-version, and v2 whole), generated from the one set of schemas
 * (schemas-*.ts) and the resource table: `kubectl explain` reads them, and kubectl's field validation
 * finds in them that the server validates fields itself (the PATCH operation's `fieldValidation`).
 */
const ALL_SCHEMAS: Record<string, Schema> = {
  ...META_SCHEMAS,
  ...PORCH_SCHEMAS,
  ...CONFIG_SCHEMAS,
  ...VARIANT_SCHEMAS,
  ...AUTHORIZATION_SCHEMAS,
};

/** Every schema, with each served kind's (and its list's) group-version-kind marked, as the API server does. */
function schemas(): Record<string, Schema> {
  const out: Record<string, Schema> = { ...ALL_SCHEMAS };
  for (const r of API_RESOURCES) {
    for (const [name, kind] of [
      [r.schema, r.kind],
      [`${r.schema}List`, `${r.kind}List`],
    ] as const) {
      const known = out[name];
      if (known)
        out[name] = {
          ...known,
          "x-kubernetes-group-version-kind": [{ group: r.group, version: r.version, kind }],
        };
    }
  }
  out[`${META}.Status`] = {
    ...out[`${META}.Status`],
    "x-kubernetes-group-version-kind": [{ group: "", version: "v1", kind: "Status" }],
  };
  return out;
}

/** The schema `name` names, whatever its form. */
export function schemaOf(name: string): Schema | undefined {
  return ALL_SCHEMAS[name];
}

const QUERY = (name: string, description: string, type = "string") => ({
  name,
  in: "query",
  description,
  schema: { type, uniqueItems: true },
});

const json = (ref: string) => ({ "application/json": { schema: { $ref: `#/components/schemas/${ref}` } } });

function operation(
  r: ApiResource,
  action: string,
  verb: string,
  body: string | undefined,
  answer: string,
  params: unknown[] = [],
) {
  return {
    description: `${verb} ${r.kind}`,
    operationId: `${action}${r.kind}`,
    tags: [`${r.group}_${r.version}`],
    parameters: params,
    ...(body ? { requestBody: { content: json(body), required: true } } : {}),
    responses: {
      "200": { description: "OK", content: json(answer) },
      "401": { description: "Unauthorized" },
    },
    "x-kubernetes-action": action,
    "x-kubernetes-group-version-kind": { group: r.group, version: r.version, kind: r.kind },
  };
}

const WRITE_PARAMS = [
  QUERY("dryRun", "Not supported: refused when set."),
  QUERY("fieldManager", "The name of the actor making the change."),
  QUERY(
    "fieldValidation",
    "Ignore, Warn (the default) or Strict: what to do with fields the schema does not have. Strict refuses them; Warn drops them with a warning; Ignore drops them.",
  ),
];

const LIST_PARAMS = [
  QUERY("labelSelector", "Only the objects whose labels match."),
  QUERY("fieldSelector", "Only the objects whose fields match (the resource's selectable fields)."),
  QUERY("watch", "Stream changes (ADDED, MODIFIED, DELETED) instead of listing.", "boolean"),
  QUERY("resourceVersion", "Where a watch starts."),
  QUERY("timeoutSeconds", "How long a watch lasts.", "integer"),
];

const PATCH_BODY = {
  content: Object.fromEntries(
    ["application/json-patch+json", "application/merge-patch+json"].map((t) => [
      t,
      { schema: { type: "object" } },
    ]),
  ),
  required: true,
};

/** The operations of one resource's collection, object and subresource paths, as its verbs allow. */
function resourcePaths(r: ApiResource): Record<string, unknown> {
  const base = !r.group
    ? `/api/${r.version}/${r.resource}`
    : r.namespaced
      ? `/apis/${r.group}/${r.version}/namespaces/{namespace}/${r.resource}`
      : `/apis/${r.group}/${r.version}/${r.resource}`;
  const scope = r.namespaced
    ? [{ name: "namespace", in: "path", required: true, schema: { type: "string" } }]
    : [];
  const named = [...scope, { name: "name", in: "path", required: true, schema: { type: "string" } }];
  const can = (verb: string) => r.verbs.includes(verb);
  const out: Record<string, unknown> = {};
  if (can("list") || can("create"))
    out[base] = {
      parameters: scope,
      ...(can("list")
        ? { get: operation(r, "list", "list", undefined, `${r.schema}List`, LIST_PARAMS) }
        : {}),
      ...(can("create") ? { post: operation(r, "post", "create", r.schema, r.schema, WRITE_PARAMS) } : {}),
    };
  // a resource only created (a review) has no objects to read
  if (!can("get")) return out;
  out[`${base}/{name}`] = {
    parameters: named,
    get: operation(r, "get", "read", undefined, r.schema),
    ...(can("update") ? { put: operation(r, "put", "replace", r.schema, r.schema, WRITE_PARAMS) } : {}),
    ...(can("patch")
      ? {
          patch: {
            ...operation(r, "patch", "partially update", undefined, r.schema, WRITE_PARAMS),
            requestBody: PATCH_BODY,
          },
        }
      : {}),
    ...(can("delete") ? { delete: operation(r, "delete", "delete", undefined, `${META}.Status`) } : {}),
  };
  for (const s of r.subresources)
    out[`${base}/{name}/${s.name}`] = {
      parameters: named,
      get: operation(r, "get", `read ${s.name} of`, undefined, r.schema),
      ...(s.verbs.includes("update")
        ? { put: operation(r, "put", `replace ${s.name} of`, r.schema, r.schema, WRITE_PARAMS) }
        : {}),
      ...(s.verbs.includes("patch")
        ? {
            patch: {
              ...operation(r, "patch", `partially update ${s.name} of`, undefined, r.schema, WRITE_PARAMS),
              requestBody: PATCH_BODY,
            },
          }
        : {}),
    };
  return out;
}

function paths(resources: readonly ApiResource[]): Record<string, unknown> {
  return Object.assign({}, ...resources.map(resourcePaths));
}

/** `/openapi/v3/apis/GROUP/VERSION`, or undefined for one not served. */
export function openApiV3(group: string, version: string): Record<string, unknown> | undefined {
  const found = apiGroups().find((g) => g.group === group && g.version === version);
  if (!found) return undefined;
  return {
    openapi: "3.0.0",
    info: { title: "porchlight: Porch's API on git", version: `${group}/${version}` },
    paths: paths(found.resources),
    components: { schemas: schemas() },
  };
}

/** `/openapi/v3`: where each group-version's document is, with a hash of its content. */
export function openApiV3Root(): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const g of apiGroups()) {
    const hash = createHash("sha512")
      .update(JSON.stringify(openApiV3(g.group, g.version)))
      .digest("hex")
      .slice(0, 128)
      .toUpperCase();
    const where = g.group ? `apis/${g.group}/${g.version}` : `api/${g.version}`;
    out[where] = { serverRelativeURL: `/openapi/v3/${where}?hash=${hash}` };
  }
  return { paths: out };
}

/** Rewrites v3's references (`#/components/schemas/X`) as v2's (`#/definitions/X`), everywhere in `value`. */
function v2Refs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(v2Refs);
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [
      k,
      k === "$ref" && typeof v === "string"
        ? v.replace("#/components/schemas/", "#/definitions/")
        : v2Refs(v),
    ]),
  );
}

/** `/openapi/v2` (JSON): the same schemas as definitions. */
export function openApiV2(): Record<string, unknown> {
  return {
    swagger: "2.0",
    info: { title: "porchlight: Porch's API on git", version: "v1alpha1" },
    paths: {},
    definitions: v2Refs(schemas()),
  };
}
