import type { Document } from "yaml";
import {
  apiVersionOf,
  indexAnnotation,
  kindOf,
  nameOf,
  namespaceOf,
  pathAnnotation,
} from "../../../kpt/resource.js";
import type { FunctionResult } from "../../types.js";

/**
 * Results and message formatting as the kpt functions catalog writes them (Go's kpt-functions-sdk):
 * the same severities, the same resource references and Go's `%v` / `%q` renderings in messages.
 */

export function infoResult(message: string): FunctionResult {
  return { message, severity: "info" };
}

export function warningResult(message: string): FunctionResult {
  return { message, severity: "warning" };
}

export function errorResult(message: string): FunctionResult {
  return { message, severity: "error" };
}

/** An error about the function config itself, pointing at it (the SDK's ErrorConfigObjectResult). */
export function configErrorResult(message: string, functionConfig: Document | undefined): FunctionResult {
  const result = errorResult(message);
  if (functionConfig) {
    const ref: NonNullable<FunctionResult["resourceRef"]> = {};
    const apiVersion = apiVersionOf(functionConfig);
    const kind = kindOf(functionConfig);
    const name = nameOf(functionConfig);
    const namespace = namespaceOf(functionConfig);
    if (apiVersion) ref.apiVersion = apiVersion;
    if (kind) ref.kind = kind;
    if (name) ref.name = name;
    if (namespace) ref.namespace = namespace;
    if (Object.keys(ref).length > 0) result.resourceRef = ref;
  }
  return result;
}

/**
 * An error result at a resource, its field and its file (the catalog SDKs' ConfigObjectResult and
 * kubernetesObjectResult): the resource's id, and its path and index as kpt annotated them.
 */
export function atResource(doc: Document, message: string, field?: string): FunctionResult {
  const ref: NonNullable<FunctionResult["resourceRef"]> = {
    apiVersion: apiVersionOf(doc),
    kind: kindOf(doc),
    name: nameOf(doc),
  };
  const namespace = namespaceOf(doc);
  if (namespace) ref.namespace = namespace;
  const result: FunctionResult = { message, severity: "error", resourceRef: ref };
  if (field !== undefined) result.field = { path: field };
  const path = pathAnnotation(doc);
  const index = indexAnnotation(doc);
  if (path !== undefined || index !== undefined) {
    result.file = {};
    if (path !== undefined) result.file.path = path;
    if (index !== undefined) result.file.index = index;
  }
  return result;
}
