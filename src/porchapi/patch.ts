import fastJsonPatch, { type Operation } from "fast-json-patch";
import { ApiError } from "./status.js";

const { applyPatch: applyJsonPatch, JsonPatchError } = fastJsonPatch;

/**
 * The patches kubectl sends: JSON merge patch (RFC 7386: `kubectl apply`, `label`, `annotate` and
 * `patch --type=merge` for kinds it does not compile in) and JSON patch (RFC 6902: `patch --type=json`).
 * A strategic merge patch is taken as a merge patch: Porch's kinds have no list merge keys.
 */
export type PatchType = "merge" | "json";

export function patchTypeOf(contentType: string | undefined): PatchType | undefined {
  const type = (contentType ?? "").split(";")[0]?.trim();
  if (type === "application/merge-patch+json" || type === "application/strategic-merge-patch+json")
    return "merge";
  if (type === "application/json-patch+json") return "json";
  return undefined;
}

/** Server-side apply's content type (apply.ts): a configuration, not a patch of the object. */
export function isApplyPatch(contentType: string | undefined): boolean {
  return (contentType ?? "").split(";")[0]?.trim() === "application/apply-patch+yaml";
}

export function applyPatch(target: unknown, type: PatchType, patch: unknown): unknown {
  return type === "merge" ? mergePatch(target, patch) : jsonPatch(target, patch);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return patch;
  const out: Record<string, unknown> = isObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

/** Why a JSON patch could not be applied, in words a kubectl user acts on (fast-json-patch's error names). */
const JSON_PATCH_REASONS: Record<string, string> = {
  OPERATION_PATH_UNRESOLVABLE: "nothing is at that path (or its parent)",
  OPERATION_FROM_UNRESOLVABLE: "nothing is at its from path",
  OPERATION_PATH_ILLEGAL_ARRAY_INDEX: "the list index is not a number",
  OPERATION_VALUE_OUT_OF_BOUNDS: "the list index is past the list's end",
  OPERATION_VALUE_REQUIRED: "it has no value",
  OPERATION_PATH_INVALID: "its path is not a JSON pointer such as /metadata/labels",
  OPERATION_FROM_REQUIRED: "it has no from path",
  OPERATION_OP_INVALID: 'its op is none of "add", "remove", "replace", "move", "copy" and "test"',
  OPERATION_NOT_AN_OBJECT: "it is not an object {op, path, value}",
  OPERATION_PATH_CANNOT_ADD: "its parent is not an object or list",
  OPERATION_VALUE_CANNOT_CONTAIN_UNDEFINED: "its value is not JSON",
};

/** RFC 6902, as fast-json-patch applies it (validated, on a copy); a failed `test` is Invalid. */
function jsonPatch(target: unknown, patch: unknown): unknown {
  if (!Array.isArray(patch))
    throw new ApiError("BadRequest", "a JSON patch is a list of operations ([{op, path, value}])");
  try {
    return applyJsonPatch(structuredClone(target), patch as Operation[], true, false).newDocument;
  } catch (e) {
    if (!(e instanceof JsonPatchError)) throw e;
    const step = e.index === undefined ? "" : ` ${e.index + 1}`;
    const op = e.operation as Partial<Operation> | undefined;
    const what = `the JSON patch's operation${step} (${String(op?.op)} ${String(op?.path)})`;
    if (e.name === "TEST_OPERATION_FAILED")
      throw new ApiError("Invalid", `${what} failed: the value there is not the one given`);
    throw new ApiError("BadRequest", `${what}: ${JSON_PATCH_REASONS[e.name] ?? e.message.split("\n")[0]}`);
  }
}
