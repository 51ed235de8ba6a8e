import { describe, expect, it } from "vitest";
import {
  type LabelRequirement,
  labelsMatch,
  parseLabelSelector,
  requirementsOf,
  type StructuredLabelSelector,
} from "../../src/api/label-selector.js";

/**
 * The one reader of label selectors, as its callers write them: `rpkg get -l` and Porch's API
 * (`?labelSelector=`), kustomize's `labelSelector` in apply-replacements, and PackageVariantSets'
 * `matchLabels`/`matchExpressions`.
 */
const LABELS = { app: "web", tier: "front", version: "3", "kpt.dev/latest-revision": "true", empty: "" };

describe("label selectors, in Kubernetes' grammar", () => {
  it.each<[string, boolean]>([
    ["", true],
    ["app=web", true],
    ["app==web", true],
    ["app = web", true],
    ["app!=web", false],
    ["app!=db", true],
    ["missing!=x", true],
    ["app in (db, web)", true],
    ["app in (db)", false],
    ["app notin (db,cache)", true],
    ["app notin (web)", false],
    ["missing notin (db)", true],
    ["missing in (db)", false],
    ["app", true],
    ["missing", false],
    ["!app", false],
    ["!missing", true],
    ["! missing", true],
    ["app=web,tier=front", true],
    ["app=web, tier=back", false],
    ["kpt.dev/latest-revision=true", true],
    ["app=", false],
    ["empty=", true],
    ["tier in (front,)", true],
    ["version>2", true],
    ["version<2", false],
    ["version>-1", true],
    ["app>1", false],
    ["missing<9", false],
  ])("%j selects: %s", (selector, selected) => {
    expect(labelsMatch(parseLabelSelector(selector), LABELS)).toBe(selected);
  });

  it.each<[string, string]>([
    [
      "app web",
      `label selector "app web": unable to parse requirement: found 'web', expected: in, notin, =, ==, !=, gt, lt`,
    ],
    ["app in (a", `label selector "app in (a": unable to parse requirement: found '', expected: ',' or ')'`],
    ["app in a", `label selector "app in a": unable to parse requirement: found 'a', expected: '('`],
    ["!", `label selector "!": unable to parse requirement: found '', expected: identifier`],
    ["=x", `label selector "=x": unable to parse requirement: found '=', expected: !, identifier`],
    [
      "Bad_Prefix/x=1",
      `label selector "Bad_Prefix/x=1": unable to parse requirement: invalid label key "Bad_Prefix/x"`,
    ],
    ["app=a b", `label selector "app=a b": unable to parse requirement: found 'b', expected: ','`],
    ["app=-x", `label selector "app=-x": unable to parse requirement: invalid label value "-x"`],
    ["app=(web", `label selector "app=(web": unable to parse requirement: found '(', expected: identifier`],
    [
      "version>x",
      `label selector "version>x": unable to parse requirement: found 'x', expected: an integer after '>'`,
    ],
    [
      "version<",
      `label selector "version<": unable to parse requirement: found '', expected: an integer after '<'`,
    ],
  ])("refuses %j, naming it and what is wrong", (selector, message) => {
    expect(() => parseLabelSelector(selector)).toThrow(message);
  });

  it.each<[string, StructuredLabelSelector, LabelRequirement[], boolean]>([
    ["nothing: everything", {}, [], true],
    [
      "matchLabels",
      { matchLabels: { app: "web", tier: "front" } },
      [
        { key: "app", op: "=", value: "web" },
        { key: "tier", op: "=", value: "front" },
      ],
      true,
    ],
    [
      "In",
      { matchExpressions: [{ key: "app", operator: "In", values: ["db", "web"] }] },
      [{ key: "app", op: "in", values: ["db", "web"] }],
      true,
    ],
    [
      "NotIn",
      { matchExpressions: [{ key: "app", operator: "NotIn", values: ["web"] }] },
      [{ key: "app", op: "notin", values: ["web"] }],
      false,
    ],
    [
      "Exists",
      { matchExpressions: [{ key: "tier", operator: "Exists" }] },
      [{ key: "tier", op: "exists" }],
      true,
    ],
    [
      "DoesNotExist",
      { matchExpressions: [{ key: "tier", operator: "DoesNotExist" }] },
      [{ key: "tier", op: "!exists" }],
      false,
    ],
    [
      "both, all must hold",
      { matchLabels: { app: "web" }, matchExpressions: [{ key: "missing", operator: "Exists" }] },
      [
        { key: "app", op: "=", value: "web" },
        { key: "missing", op: "exists" },
      ],
      false,
    ],
  ])(
    "a structured selector (%s) reads as the string form's requirements",
    (_, selector, requirements, selected) => {
      expect(requirementsOf(selector)).toEqual(requirements);
      expect(labelsMatch(requirementsOf(selector), LABELS)).toBe(selected);
    },
  );
});
