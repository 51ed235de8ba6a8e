import { describe, expect, it } from "vitest";
import {
  ANNOTATIONS_MAX_BYTES,
  annotationProblems,
  fieldProblemText,
  labelProblems,
  labelValueProblems,
  qualifiedNameProblems,
} from "../../src/api/object-meta.js";

/** The API server's messages, as apimachinery's validation writes them. */
const NAME_REGEX =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const QUALIFIED = `a qualified name ${NAME_REGEX} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`;
const PREFIX_REGEX =
  "prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const VALUE_REGEX =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

describe("labels and annotations, as the Kubernetes API server checks them", () => {
  it.each<[string, string[]]>([
    ["app", []],
    ["app.kubernetes.io/name", []],
    ["kpt.dev/latest-revision", []],
    ["My_Name.1", []],
    [`${"a".repeat(253)}/${"b".repeat(63)}`, []],
    ["../../etc passwd", [QUALIFIED]],
    ["etc passwd", [`name part ${NAME_REGEX}`]],
    ["-app", [`name part ${NAME_REGEX}`]],
    ["", ["name part must be non-empty", `name part ${NAME_REGEX}`]],
    ["/app", ["prefix part must be non-empty"]],
    ["kpt.dev/", ["name part must be non-empty", `name part ${NAME_REGEX}`]],
    ["Kpt.dev/app", [PREFIX_REGEX]],
    ["a".repeat(64), ["name part must be no more than 63 characters"]],
    [`${"a".repeat(254)}/app`, ["prefix part must be no more than 253 characters"]],
  ])("key %j: %j", (key, problems) => {
    expect(qualifiedNameProblems(key)).toEqual(problems);
  });

  it.each<[string, string[]]>([
    ["", []],
    ["web", []],
    ["v1.2_3-x", []],
    ["a".repeat(63), []],
    ["a".repeat(64), ["must be no more than 63 characters"]],
    ["a\u0000b", [VALUE_REGEX]],
    ["has space", [VALUE_REGEX]],
    ["x".repeat(1 << 20), ["must be no more than 63 characters"]],
  ])("label value %#", (value, problems) => {
    expect(labelValueProblems(value)).toEqual(problems);
  });

  it("names the field and quotes the bad key or value as Go's %q does, cutting a long one", () => {
    expect(
      labelProblems({ "../../etc passwd": "x", ok: "a\u0000b" }, "metadata.labels").map(fieldProblemText),
    ).toEqual([
      `metadata.labels: Invalid value: "../../etc passwd": ${QUALIFIED}`,
      `metadata.labels: Invalid value: "a\\x00b": ${VALUE_REGEX}`,
    ]);
    const [long] = labelProblems({ big: "x".repeat(1 << 20) }, "metadata.labels");
    expect(long).toEqual({
      reason: "FieldValueInvalid",
      field: "metadata.labels",
      message: `Invalid value: "${"x".repeat(128)}"... (1048576 bytes): must be no more than 63 characters`,
    });
    expect(labelProblems({ n: 3 }, "spec.labels").map(fieldProblemText)).toEqual([
      'spec.labels[n]: Invalid value: "3": must be a string',
    ]);
  });

  it("takes any annotation value and capitals in an annotation key's prefix, up to 256 KiB in all", () => {
    expect(
      annotationProblems(
        { "Example.COM/Owner": "a\u0000b\n", note: "x".repeat(1000) },
        "metadata.annotations",
      ),
    ).toEqual([]);
    expect(
      annotationProblems({ "../../etc passwd": "x" }, "metadata.annotations").map(fieldProblemText),
    ).toEqual([`metadata.annotations: Invalid value: "../../etc passwd": ${QUALIFIED}`]);
    // keys and values are counted in UTF-8 bytes: "é" is two
    const exactly = { k: `${"é".repeat(131_071)}x` };
    // the key's 1 byte and the value's 262,143: the limit exactly
    expect(1 + Buffer.byteLength(exactly.k)).toBe(ANNOTATIONS_MAX_BYTES);
    expect(annotationProblems(exactly, "metadata.annotations")).toEqual([]);
    expect(annotationProblems({ ...exactly, k: `${exactly.k}x` }, "metadata.annotations")).toEqual([
      {
        reason: "FieldValueTooLong",
        field: "metadata.annotations",
        message: "Too long: must have at most 262144 bytes",
      },
    ]);
  });
});
