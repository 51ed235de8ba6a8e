import { isScalar, parseDocument, Scalar } from "yaml";

/**
 * Reading and writing scalar text the way kyaml-based catalog functions do. Go functions see a scalar
 * as its source text (`node.Value`) and, when they assign a new value, clear the tag and keep the
 * quoting style, so `replicas: 1` set to "3" prints `replicas: 3` (an int again), not `"3"`.
 */

/** The scalar's text as written (`1.10` stays `1.10`), or its value rendered when it has no source. */
export function scalarText(node: Scalar): string {
  const value = node.value;
  if (typeof value === "string") return value;
  const source = (node as { source?: unknown }).source;
  if (value === null || value === undefined) {
    return typeof source === "string" && /^(?:~|null|Null|NULL)?$/.test(source) ? source : "";
  }
  if (typeof source === "string" && sourceMatches(source, value)) return source;
  return String(value);
}

/** True when `source` is still the text of `value` (a node edited after parsing keeps a stale source). */
function sourceMatches(source: string, value: unknown): boolean {
  if (typeof value === "boolean") return source.toLowerCase() === String(value);
  if (typeof value === "number" || typeof value === "bigint") {
    const n = Number(source.replace(/_/g, ""));
    return !Number.isNaN(n) ? n === Number(value) : Number.isNaN(Number(value)) && /nan/i.test(source);
  }
  return false;
}

/** How a text is written as a plain scalar that re-reads as a number, boolean or null. */
interface PlainForm {
  value: unknown;
  format?: string;
  minFractionDigits?: number;
}

/**
 * Writes scalar text like kyaml: a new value keeps the node and its quote style, drops an explicit tag,
 * is plain when YAML allows (numbers and booleans stay unquoted), single-quoted when plain is not
 * allowed, a literal block when it spans lines, and `""` when empty. One writer per function run: it
 * caches how each distinct text is written.
 */
export class ScalarWriter {
  private readonly plainForms = new Map<string, PlainForm | "string">();

  set(node: Scalar, text: string, inFlow = false): void {
    node.tag = undefined;
    if (text === "") {
      this.assignString(node, "");
      node.type = Scalar.QUOTE_DOUBLE;
      return;
    }
    const quoted =
      node.type === Scalar.QUOTE_DOUBLE ||
      node.type === Scalar.QUOTE_SINGLE ||
      node.type === Scalar.BLOCK_LITERAL ||
      node.type === Scalar.BLOCK_FOLDED;
    if (quoted) {
      this.assignString(node, text);
      return;
    }
    const plain = this.plainForm(text);
    if (plain === "string") {
      this.assignString(node, text);
      if (text.includes("\n")) node.type = Scalar.BLOCK_LITERAL;
      else node.type = plainAllowed(text, inFlow) ? Scalar.PLAIN : Scalar.QUOTE_SINGLE;
      return;
    }
    node.value = plain.value;
    (node as { source?: string }).source = text;
    node.format = plain.format;
    node.minFractionDigits = plain.minFractionDigits;
    node.type = undefined;
  }

  private assignString(node: Scalar, text: string): void {
    node.value = text;
    (node as { source?: string }).source = text;
    node.format = undefined;
    node.minFractionDigits = undefined;
  }

  /**
   * "string" when the text reads as a string; else its number, boolean or null form. The node keeps the
   * text as its source, which the kpt formatter writes as it is (`007`, `1e3`, `1.10` stay so).
   */
  private plainForm(text: string): PlainForm | "string" {
    if (!looksTyped(text)) return "string";
    const cached = this.plainForms.get(text);
    if (cached !== undefined) return cached;
    let form: PlainForm | "string" = "string";
    const parsed = parseDocument(text).contents;
    if (isScalar(parsed) && typeof parsed.value !== "string" && parsed.value !== undefined) {
      form = { value: parsed.value, format: parsed.format, minFractionDigits: parsed.minFractionDigits };
    }
    this.plainForms.set(text, form);
    return form;
  }
}

/** A cheap test for texts YAML's core schema may read as something other than a string. */
function looksTyped(text: string): boolean {
  return /^(?:[-+]?[.0-9]|~$|null$|Null$|NULL$|true$|True$|TRUE$|false$|False$|FALSE$|\.(?:inf|Inf|INF|nan|NaN|NAN)$)/.test(
    text,
  );
}

/** Whether YAML allows `text` as a plain scalar (YAML 1.2 §7.3.3), in block or flow context. */
function plainAllowed(text: string, inFlow: boolean): boolean {
  if (text === "" || text !== text.trim()) return false;
  if (text.includes("\n")) return false;
  const first = text[0] ?? "";
  const second = text[1] ?? "";
  if ("-?:".includes(first)) {
    if (second === "" || second === " " || second === "\t") return false;
    if (inFlow && ",[]{}".includes(second)) return false;
  } else if (",[]{}#&*!|>'\"%@`".includes(first)) {
    return false;
  }
  if (text.startsWith("---") || text.startsWith("...")) return false;
  if (text.includes(": ") || text.includes(" #") || text.includes(":\t") || text.includes("\t#"))
    return false;
  if (text.endsWith(":")) return false;
  if (inFlow && /[,[\]{}]/.test(text)) return false;
  return true;
}
