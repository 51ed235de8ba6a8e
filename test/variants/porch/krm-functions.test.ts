import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { applyVariantMutations } from "../../../src/variants/mutations.js";
import type { PackageVariant } from "../../../src/variants/schema.js";
import { onlyVariant, PRR_KPTFILE } from "./fixtures.js";

/**
 * Porch's controller tests, translated: nephio-project/porch at 74d82d569e37,
 * controllers/packagevariants/pkg/controllers/packagevariant/packagevariant_controller_test.go
 * TestEnsureKRMFunctions and its -with-workspacename twin TestEnsureKRMFunctionsWS (the same cases). Each
 * row's Kptfile is compared as YAML data, as Porch's controller compares Kptfiles (kptfilesEqual: its
 * own writer and Nephio's lay them out differently); the layout here is kpt's, the comment of the
 * comments case is checked apart. As in Porch's test, applying the variant again changes nothing.
 */

const KPTFILE_HEAD = PRR_KPTFILE;
const C = "ghcr.io/kptdev/krm-functions-catalog";

function variant(upstream: string, pipeline: string): PackageVariant {
  return onlyVariant(
    `apiVersion: config.porch.kpt.dev/v1alpha1\nkind: PackageVariant\nmetadata:\n  name: my-pv\nspec:\n  upstream:\n    repo: blueprints\n    package: foo\n    ${upstream}\n  downstream:\n    repo: deployments\n    package: bar\n${pipeline ? `  pipeline:\n${pipeline}` : ""}`,
  );
}

/** The Kptfile's pipeline after applying, without porchlight's tracking annotations (not Porch's). */
function pipelineOf(text: string | undefined): unknown {
  return (parse(text ?? "") as { pipeline?: unknown }).pipeline;
}

const fn = (name: string, image: string, configMap?: Record<string, string>) => ({
  name,
  image,
  ...(configMap ? { configMap } : {}),
});
const setLabels = fn("set-labels", `${C}/set-labels:v0.1`, { app: "foo" });
const setAnnotations = fn("set-annotations", `${C}/set-annotations:v0.1`);
const setNamespace = (n: number) =>
  fn(`PackageVariant.my-pv.set-namespace.${n}`, `${C}/set-namespace:v0.1alog/set-namespace:v0.1`, {
    namespace: "my-ns",
  });
const gatekeeper = fn("gatekeeper-validate", `${C}/gatekeeper-validate:v0.1atekeeper-validate:v0.1`);
const validateName = fn("PackageVariant.my-pv.validate-name.0", `${C}/validate-name:undefined`);

const existingMutators = `  mutators:
    - image: ${C}/set-labels:v0.1
      name: set-labels
      configMap:
        app: foo
    - image: ${C}/set-annotations:v0.1
      name: set-annotations
`;
const pvSetNamespace = `    mutators:
      - image: ${C}/set-namespace:v0.1alog/set-namespace:v0.1
        name: set-namespace
        configMap:
          namespace: my-ns
`;
const existingValidator = `  validators:
    - image: ${C}/gatekeeper-validate:v0.1atekeeper-validate:v0.1
      name: gatekeeper-validate
`;
const pvValidateName = `    validators:
      - image: ${C}/validate-name:undefined
        name: validate-name
`;

const rows: { go: string; initial: string; pv: string; expected: unknown }[] = [
  {
    go: "add one mutator with existing mutators",
    initial: existingMutators,
    pv: pvSetNamespace,
    expected: { mutators: [setNamespace(0), setLabels, setAnnotations] },
  },
  {
    go: "add two mutators with existing",
    initial: existingMutators,
    pv: `${pvSetNamespace}      - image: ${C}/format:latest\n        name: format\n`,
    expected: {
      mutators: [
        setNamespace(0),
        fn("PackageVariant.my-pv.format.1", `${C}/format:latest`),
        setLabels,
        setAnnotations,
      ],
    },
  },
  {
    go: "add one mutator with none existing",
    initial: "",
    pv: pvSetNamespace,
    expected: { mutators: [setNamespace(0)] },
  },
  {
    go: "add none with existing mutators",
    initial: existingMutators,
    pv: "",
    expected: { mutators: [setLabels, setAnnotations] },
  },
  {
    go: "add one mutator with existing with comments",
    initial: existingMutators.replace(
      "      name: set-labels",
      "      # this is a comment\n      name: set-labels",
    ),
    pv: pvSetNamespace,
    expected: { mutators: [setNamespace(0), setLabels, setAnnotations] },
  },
  {
    go: "add one validator with existing validators",
    initial: existingValidator,
    pv: pvValidateName,
    expected: { validators: [validateName, gatekeeper] },
  },
  {
    go: "add two validators with existing validators",
    initial: existingValidator,
    pv: pvValidateName,
    expected: { validators: [validateName, gatekeeper] },
  },
  {
    go: "add none with existing validator",
    initial: existingValidator,
    pv: "",
    expected: { validators: [gatekeeper] },
  },
  {
    go: "add validator and mutator with existing",
    initial: `  validators:\n    - image: ${C}/val1\n      name: val1\n    - image: ${C}/val2\n      name: val2\n  mutators:\n    - image: ${C}/mut1\n      name: mut1\n    - image: ${C}/mut2\n      name: mut2\n`,
    pv: `    validators:\n    - image: ${C}/val3\n      name: val3\n    - image: ${C}/val4\n      name: val4\n    mutators:\n    - image: ${C}/mut3\n      name: mut3\n    - image: ${C}/mut4\n      name: mut4\n`,
    expected: {
      validators: [
        fn("PackageVariant.my-pv.val3.0", `${C}/val3`),
        fn("PackageVariant.my-pv.val4.1", `${C}/val4`),
        fn("val1", `${C}/val1`),
        fn("val2", `${C}/val2`),
      ],
      mutators: [
        fn("PackageVariant.my-pv.mut3.0", `${C}/mut3`),
        fn("PackageVariant.my-pv.mut4.1", `${C}/mut4`),
        fn("mut1", `${C}/mut1`),
        fn("mut2", `${C}/mut2`),
      ],
    },
  },
  {
    go: "remove pv mutator",
    initial: `  mutators:\n  - image: ${C}/mut:v1\n    name: PackageVariant.my-pv.mut.0\n`,
    pv: "",
    expected: undefined,
  },
  {
    go: "remove pv validator",
    initial: `  validators:\n  - image: ${C}/val:v1\n    name: PackageVariant.my-pv.val.0\n`,
    pv: "",
    expected: undefined,
  },
  {
    go: "remove pv validator, keep prr one",
    initial: `  validators:\n  - image: ${C}/val:v1\n    name: PackageVariant.my-pv.val.0\n  - image: ${C}/val:v1\n    name: non-pv-val\n`,
    pv: "",
    expected: { validators: [fn("non-pv-val", `${C}/val:v1`)] },
  },
];

describe.each([
  ["TestEnsureKRMFunctions", "revision: 1"],
  ["TestEnsureKRMFunctionsWS", "workspaceName: v1"],
])("Porch %s", (_test, upstream) => {
  it.each(rows)("$go", ({ initial, pv, expected }) => {
    const v = variant(upstream, pv);
    const kptfile = KPTFILE_HEAD + (initial ? `pipeline:\n${initial}` : "");
    const once = applyVariantMutations(new Map([["Kptfile", kptfile]]), v).files.get("Kptfile");
    expect(pipelineOf(once)).toEqual(expected);
    if (initial.includes("# this is a comment")) expect(once).toContain("# this is a comment");
    // idempotence, as Porch's test checks it
    const twice = applyVariantMutations(new Map([["Kptfile", once ?? ""]]), v).files.get("Kptfile");
    expect(twice).toBe(once);
  });
});
