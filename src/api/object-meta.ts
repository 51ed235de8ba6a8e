import { goQuoteString } from "./go-quote.js";

/**
 * Kubernetes' rules for labels and annotations, the one reader of them (docs/architecture.md: on the floor,
 * beside the label selectors, since Porch's API, `rpkg label`/`annotate` and `repo register --labels` all
 * check them), in the API server's words (apimachinery's `validation.IsQualifiedName`,
 * `IsValidLabelValue`, and ObjectMeta's `ValidateLabels`/`ValidateAnnotations`):
 * - a key is a qualified name: an optional DNS-1123 subdomain prefix (at most 253 characters) and `/`,
 *   then a name of 1 to 63 letters, digits, `-`, `_`, `.`, alphanumeric at both ends (an annotation's key
 *   is read in lower case, so its prefix may have capitals);
 * - a label value is empty or such a name;
 * - an annotation value may hold anything, but the keys and values of an object's annotations come to
 *   256 KiB at most, counted in UTF-8 bytes.
 */

const QUALIFIED_NAME_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const QUALIFIED_NAME = new RegExp(`^${QUALIFIED_NAME_FMT}$`);
const QUALIFIED_NAME_MSG =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_VALUE_FMT = `(${QUALIFIED_NAME_FMT})?`;
const LABEL_VALUE = new RegExp(`^${LABEL_VALUE_FMT}$`);
const LABEL_VALUE_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const DNS1123_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`;
const DNS1123_SUBDOMAIN = new RegExp(`^${DNS1123_SUBDOMAIN_FMT}$`);
const DNS1123_SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";

/** The longest name part of a key, and the longest label value. */
const QUALIFIED_NAME_MAX = 63;
/** The longest prefix of a key (a DNS-1123 subdomain). */
const PREFIX_MAX = 253;
/** What an object's annotations, keys and values, may weigh together (the API server's 256 KiB). */
export const ANNOTATIONS_MAX_BYTES = 256 * 1024;

const maxLen = (n: number) => `must be no more than ${n} characters`;
/** apimachinery's RegexError, examples and all. */
const regexError = (msg: string, fmt: string, ...examples: string[]) =>
  `${msg} (e.g. ${examples.map((e) => `'${e}', `).join(" or ")}regex used for validation is '${fmt}')`;

/** What is wrong with `value` as a qualified name (a label's or annotation's key); none: it is one. */
export function qualifiedNameProblems(value: string): string[] {
  const parts = value.split("/");
  const out: string[] = [];
  if (parts.length > 2)
    return [
      `a qualified name ${regexError(QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, "MyName", "my.name", "123-abc")} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  const [prefix, name] = parts.length === 2 ? [parts[0] ?? "", parts[1] ?? ""] : [undefined, value];
  if (prefix === "") out.push("prefix part must be non-empty");
  else if (prefix !== undefined) {
    if (prefix.length > PREFIX_MAX) out.push(`prefix part ${maxLen(PREFIX_MAX)}`);
    if (!DNS1123_SUBDOMAIN.test(prefix))
      out.push(`prefix part ${regexError(DNS1123_SUBDOMAIN_MSG, DNS1123_SUBDOMAIN_FMT, "example.com")}`);
  }
  if (name.length === 0) out.push("name part must be non-empty");
  else if (name.length > QUALIFIED_NAME_MAX) out.push(`name part ${maxLen(QUALIFIED_NAME_MAX)}`);
  if (!QUALIFIED_NAME.test(name))
    out.push(
      `name part ${regexError(QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, "MyName", "my.name", "123-abc")}`,
    );
  return out;
}

/** What is wrong with `value` as a label value; none: it is one. */
export function labelValueProblems(value: string): string[] {
  const out: string[] = [];
  if (value.length > QUALIFIED_NAME_MAX) out.push(maxLen(QUALIFIED_NAME_MAX));
  if (!LABEL_VALUE.test(value))
    out.push(regexError(LABEL_VALUE_MSG, LABEL_VALUE_FMT, "MyValue", "my_value", "12345"));
  return out;
}

/**
 * One field's problem as the API server reports it (a `metav1.StatusCause`): `reason` its cause type,
 * `message` the error's body (`Invalid value: "x": …`), `field` its path (`metadata.labels`).
 */
export interface FieldProblem {
  reason: "FieldValueInvalid" | "FieldValueTooLong";
  message: string;
  field: string;
}

/** A problem as one line, `field: body`, as field.Error prints it. */
export const fieldProblemText = (p: FieldProblem): string => `${p.field}: ${p.message}`;

/** Past this length a value is shown cut, with its size: a message never carries a megabyte back. */
const SHOWN_MAX = 128;

function shown(value: string): string {
  if (value.length <= SHOWN_MAX) return goQuoteString(value);
  return `${goQuoteString(value.slice(0, SHOWN_MAX))}... (${Buffer.byteLength(value)} bytes)`;
}

const invalid = (field: string, value: string, detail: string): FieldProblem => ({
  reason: "FieldValueInvalid",
  message: `Invalid value: ${shown(value)}: ${detail}`,
  field,
});

/** A map's entries whose value is no string: JSON may send a number where Kubernetes takes only strings. */
function stringEntries(
  map: Readonly<Record<string, unknown>>,
  field: string,
  out: FieldProblem[],
): [string, string][] {
  const entries: [string, string][] = [];
  for (const [k, v] of Object.entries(map)) {
    if (typeof v === "string") entries.push([k, v]);
    else out.push(invalid(`${field}[${k}]`, JSON.stringify(v) ?? String(v), "must be a string"));
  }
  return entries;
}

/** The problems of `labels` (at `field`, e.g. `metadata.labels`): each key a qualified name, each value a label value. */
export function labelProblems(labels: Readonly<Record<string, unknown>>, field: string): FieldProblem[] {
  const out: FieldProblem[] = [];
  for (const [key, value] of stringEntries(labels, field, out)) {
    for (const p of qualifiedNameProblems(key)) out.push(invalid(field, key, p));
    for (const p of labelValueProblems(value)) out.push(invalid(field, value, p));
  }
  return out;
}

/** The size of annotations as the API server counts it: every key's and value's bytes. */
export function annotationsBytes(annotations: Readonly<Record<string, string>>): number {
  let total = 0;
  for (const [k, v] of Object.entries(annotations)) total += Buffer.byteLength(k) + Buffer.byteLength(v);
  return total;
}

/** The problems of `annotations` (at `field`): each key a qualified name (read in lower case), 256 KiB in all. */
export function annotationProblems(
  annotations: Readonly<Record<string, unknown>>,
  field: string,
): FieldProblem[] {
  const out: FieldProblem[] = [];
  const entries = stringEntries(annotations, field, out);
  for (const [key] of entries)
    for (const p of qualifiedNameProblems(key.toLowerCase())) out.push(invalid(field, key, p));
  if (annotationsBytes(Object.fromEntries(entries)) > ANNOTATIONS_MAX_BYTES)
    out.push({
      reason: "FieldValueTooLong",
      message: `Too long: must have at most ${ANNOTATIONS_MAX_BYTES} bytes`,
      field,
    });
  return out;
}

function mapProblems(
  map: unknown,
  field: string,
  check: (m: Readonly<Record<string, unknown>>, field: string) => FieldProblem[],
): FieldProblem[] {
  if (map === undefined || map === null) return [];
  if (typeof map !== "object" || Array.isArray(map))
    return [invalid(field, JSON.stringify(map) ?? String(map), "must be a map of strings to strings")];
  return check(map as Record<string, unknown>, field);
}

/**
 * The problems of the `labels` and `annotations` of `holder`, an object's metadata (`field`: `metadata`)
 * or any part that carries the two maps (a PackageVariant's `spec`), each naming its field.
 */
export function labelsAndAnnotationsProblems(holder: unknown, field: string): FieldProblem[] {
  const at = (key: string) =>
    typeof holder === "object" && holder !== null ? (holder as Record<string, unknown>)[key] : undefined;
  return [
    ...mapProblems(at("labels"), `${field}.labels`, labelProblems),
    ...mapProblems(at("annotations"), `${field}.annotations`, annotationProblems),
  ];
}
