import type { Document } from "yaml";
import { apiVersionOf, kindOf, nameOf, namespaceOf } from "../../../kpt/resource.js";
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

/** Go's `%v` of a `[]string`: `[a b c]`. */
export function goList(values: readonly string[]): string {
  return `[${values.join(" ")}]`;
}

/** Go's `%q` of a string (a double-quoted literal with Go's escapes for the common cases). */
export function goQuote(value: string): string {
  let out = '"';
  for (const ch of value) {
    const code = ch.codePointAt(0) ?? 0;
    if (ch === '"') out += '\\"';
    else if (ch === "\\") out += "\\\\";
    else if (ch === "\n") out += "\\n";
    else if (ch === "\t") out += "\\t";
    else if (ch === "\r") out += "\\r";
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, "0")}`;
    else out += ch;
  }
  return `${out}"`;
}

/** The sorted distinct values (Go's `sets.String.List()`). */
export function sortedSet(values: Iterable<string>): string[] {
  return [...new Set(values)].sort(byteOrder);
}

/** Go's string ordering (bytewise over UTF-8; equal to code point order). */
export function byteOrder(a: string, b: string): number {
  if (a === b) return 0;
  const x = Buffer.from(a, "utf8");
  const y = Buffer.from(b, "utf8");
  return Buffer.compare(x, y);
}
