import { ApiError } from "./status.js";

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

/** A JSON pointer's tokens (`/a/b~1c` → a, b/c). */
function tokens(pointer: unknown): string[] {
  if (typeof pointer !== "string" || (pointer !== "" && !pointer.startsWith("/")))
    throw new ApiError(
      "BadRequest",
      `the JSON patch path ${JSON.stringify(pointer)} is not a JSON pointer such as /metadata/labels`,
    );
  return pointer === ""
    ? []
    : pointer
        .slice(1)
        .split("/")
        .map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~"));
}

function parentOf(doc: unknown, path: string[], op: string): { parent: unknown; key: string } {
  let at = doc;
  for (const t of path.slice(0, -1)) {
    at = Array.isArray(at) ? at[Number(t)] : isObject(at) ? at[t] : undefined;
    if (at === undefined)
      throw new ApiError(
        "BadRequest",
        `the JSON patch's ${op} at /${path.join("/")}: /${path.slice(0, path.indexOf(t) + 1).join("/")} does not exist`,
      );
  }
  return { parent: at, key: path[path.length - 1] ?? "" };
}

function getAt(doc: unknown, path: string[]): unknown {
  let at = doc;
  for (const t of path) at = Array.isArray(at) ? at[Number(t)] : isObject(at) ? at[t] : undefined;
  return at;
}

function remove(doc: unknown, path: string[], op: string): unknown {
  const { parent, key } = parentOf(doc, path, op);
  if (Array.isArray(parent)) return parent.splice(Number(key), 1)[0];
  if (!isObject(parent) || !(key in parent))
    throw new ApiError("BadRequest", `the JSON patch's ${op} at /${path.join("/")}: nothing is there`);
  const old = parent[key];
  delete parent[key];
  return old;
}

function add(doc: unknown, path: string[], value: unknown, op: string): unknown {
  if (path.length === 0) return value;
  const { parent, key } = parentOf(doc, path, op);
  if (Array.isArray(parent)) parent.splice(key === "-" ? parent.length : Number(key), 0, value);
  else if (isObject(parent)) parent[key] = value;
  else
    throw new ApiError(
      "BadRequest",
      `the JSON patch's ${op} at /${path.join("/")}: its parent is not an object or list`,
    );
  return doc;
}

function jsonPatch(target: unknown, patch: unknown): unknown {
  if (!Array.isArray(patch))
    throw new ApiError("BadRequest", "a JSON patch is a list of operations ([{op, path, value}])");
  let doc: unknown = structuredClone(target);
  for (const step of patch) {
    if (!isObject(step))
      throw new ApiError("BadRequest", "each JSON patch operation is an object {op, path, value}");
    const path = tokens(step.path);
    const op = String(step.op);
    if (op === "add") doc = add(doc, path, step.value, op);
    else if (op === "remove") remove(doc, path, op);
    else if (op === "replace") {
      remove(doc, path, op);
      doc = add(doc, path, step.value, op);
    } else if (op === "move" || op === "copy") {
      const from = tokens(step.from);
      const value = op === "move" ? remove(doc, from, op) : structuredClone(getAt(doc, from));
      doc = add(doc, path, value, op);
    } else if (op === "test") {
      if (JSON.stringify(getAt(doc, path)) !== JSON.stringify(step.value))
        throw new ApiError("Invalid", `the JSON patch's test at ${String(step.path)} failed`);
    } else
      throw new ApiError(
        "BadRequest",
        `unknown JSON patch operation "${op}": use add, remove, replace, move, copy or test`,
      );
  }
  return doc;
}
