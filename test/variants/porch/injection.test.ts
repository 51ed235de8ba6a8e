import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { type InjectableResource, VariantMutationError } from "../../../src/variants/index.js";
import { applyVariantMutations } from "../../../src/variants/mutations.js";
import type { PackageVariant } from "../../../src/variants/schema.js";
import { onlyVariant, PRR_CONTEXT, PRR_KPTFILE } from "./fixtures.js";

/**
 * Porch's controller tests, translated: nephio-project/porch at 74d82d569e37,
 * controllers/packagevariants/pkg/controllers/packagevariant/injection_test.go (and its
 * -with-workspacename twin, whose cases are the same but for `workspace: v1` in the variant's upstream):
 * TestFindInjectionPoints, TestValidateInjectionPoints, TestSetInjectionPointConditionsAndGates,
 * TestEnsureConfigInjection. Porch's tests call the steps of ensureConfigInjection one by one on a
 * PackageRevisionResources of a Kptfile, package-context.yaml and the case's files; porchlight has one
 * entry point, applyVariantMutations, so each case's injection points are files of a package, and what
 * Porch's step answers is read from the result (the injection points found, the error thrown, the
 * Kptfile written). Injectable resources are those of Porch's fake client (fake_client.go): Porch lists
 * them in its cluster, porchlight gets them from the downstream repository — whence the one deliberate
 * difference, a condition message ending `from the downstream repository` where Porch's says
 * `from cluster`. Kptfiles are compared as YAML data without porchlight's tracking annotations.
 */

const KPTFILE = PRR_KPTFILE;
const CONTEXT = PRR_CONTEXT;

/** fake_client.go's List: three ConfigMaps and three Teams "in the cluster". */
const FAKE_CLUSTER: InjectableResource[] = [
  ...["us-east1", "us-east2", "us-east3"].map((r) => ({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: `${r}-endpoints` },
    data: { db: `db.${r}.example.com` },
  })),
  ...[
    ["dev-team-alpha", "ab"],
    ["dev-team-beta", "cd"],
    ["prod-team", "ef"],
  ].map(([name, chargeCode]) => ({
    apiVersion: "hr.example.com/v1alpha1",
    kind: "Team",
    metadata: { name: name as string },
    spec: { chargeCode },
  })),
];

function variant(upstreamRevision: string, injectors = ""): PackageVariant {
  return onlyVariant(
    `apiVersion: config.porch.kpt.dev/v1alpha1\nkind: PackageVariant\nmetadata: {name: my-pv}\nspec:\n  upstream: {repo: blueprints, package: foo, ${upstreamRevision}}\n  downstream: {repo: deployments, package: bar}\n${injectors}`,
  );
}

/** A ConfigMap or other object, annotated as an injection point with `value`. */
const point = (kind: string, name: string, value: string, apiVersion = "v1") =>
  `apiVersion: ${apiVersion}\nkind: ${kind}\nmetadata:\n  name: ${name}\n  annotations:\n    kpt.dev/config-injection: ${value}\n${kind === "ConfigMap" ? "data" : "spec"}:\n  foo: bar\n`;

/** The message of a mutation error without the `<file>: ` porchlight puts before every one. */
function errorOf(run: () => unknown): string {
  try {
    run();
  } catch (err) {
    expect(err).toBeInstanceOf(VariantMutationError);
    const e = err as VariantMutationError;
    return e.message.slice(e.file.length + 2);
  }
  throw new Error("no error thrown");
}

/** Porch's error, then porchlight's hint in parentheses: what to do. */
const startsWithPorch = (message: string, porch: string) => {
  expect(message.startsWith(porch)).toBe(true);
  expect(message.slice(porch.length)).toMatch(/^ \(.+\)$/);
};

/** YAML data of a file, the Kptfile without porchlight's tracking annotations (Porch has none). */
function data(path: string, text: string | undefined): unknown {
  const docs = (text ?? "").split(/^---\n/m).map((d) => parse(d));
  if (path === "Kptfile") {
    const annotations = docs[0]?.metadata?.annotations ?? {};
    for (const k of Object.keys(annotations)) if (k.startsWith("porchlight.dev/")) delete annotations[k];
  }
  return docs.length === 1 ? docs[0] : docs;
}

describe.each([
  ["injection_test.go", "", "revision: 1"],
  ["injection-with-workspacename_test.go", "WS", "workspaceName: v1"],
])("Porch %s", (_file, ws, upstreamRevision) => {
  const apply = (
    files: Record<string, string>,
    injectors = "",
    resources: InjectableResource[] = FAKE_CLUSTER,
    kptfile = KPTFILE,
  ) =>
    applyVariantMutations(
      new Map(Object.entries({ Kptfile: kptfile, "package-context.yaml": CONTEXT, ...files })),
      variant(upstreamRevision, injectors),
      resources,
    );
  /** The injection points found, as Porch's test compares them (sorted by condition type). */
  const found = (files: Record<string, string>) =>
    apply(files)
      .injection.map(({ file, required, conditionType }) => ({ file, required, conditionType }))
      .sort((a, b) => (a.conditionType < b.conditionType ? -1 : 1));

  describe(`TestFindInjectionPoints${ws}`, () => {
    it("parse error", () => {
      expect(() => apply({ "junk.yaml": "baddata" })).toThrow(
        "junk.yaml: failed to extract objects: unhandled node kind 8",
      );
    });

    it("no injection points", () => {
      expect(found({})).toEqual([]);
    });

    it("one optional injection point", () => {
      const file = `apiVersion: v1
kind: ConfigMap
metadata:
  name: foo
  annotations:
    config.kubernetes.io/local-config: "true"
    kpt.dev/config-injection: optional
data:
  foo: bar
`;
      expect(found({ "file.yaml": file })).toEqual([
        { file: "file.yaml", required: false, conditionType: "config.injection.ConfigMap.foo" },
      ]);
    });

    // Porch finds the point with its error; ensureConfigInjection then refuses the package with it.
    it("one invalid injection point", () => {
      startsWithPorch(
        errorOf(() => apply({ "file.yaml": point("ConfigMap", "foo", "invalid") })),
        'errors in injection points: file.yaml: ConfigMap/foo has invalid "kpt.dev/config-injection" annotation value of "invalid"',
      );
    });

    it("one required injection point", () => {
      expect(found({ "file2.yaml": point("ConfigMap", "foo", "required") })).toEqual([
        { file: "file2.yaml", required: true, conditionType: "config.injection.ConfigMap.foo" },
      ]);
    });

    const mixed = `${point("ConfigMap", "foo", "required")}---\n${point("MyType", "foo", "optional", "bigco.com/v2")}`;
    it("multiple injection points in one file", () => {
      expect(found({ "file.yaml": mixed })).toEqual([
        { file: "file.yaml", required: true, conditionType: "config.injection.ConfigMap.foo" },
        { file: "file.yaml", required: false, conditionType: "config.injection.MyType.foo" },
      ]);
    });

    it("multiple injection points across files", () => {
      expect(
        found({ "file.yaml": mixed, "some-file.yaml": point("MyType", "foo2", "required", "bigco.com/v2") }),
      ).toEqual([
        { file: "file.yaml", required: true, conditionType: "config.injection.ConfigMap.foo" },
        { file: "file.yaml", required: false, conditionType: "config.injection.MyType.foo" },
        { file: "some-file.yaml", required: true, conditionType: "config.injection.MyType.foo2" },
      ]);
    });
  });

  // Porch's cases give injection points directly, `errors` standing for what findInjectionPoints found
  // wrong; here they are package files, an error an invalid annotation value.
  describe(`TestValidateInjectionPoints${ws}`, () => {
    it("no injection points", () => {
      expect(() => apply({})).not.toThrow();
    });
    it("one optional injection point", () => {
      expect(() => apply({ "file.yaml": point("ConfigMap", "foo", "optional") })).not.toThrow();
    });
    it("one invalid injection point", () => {
      startsWithPorch(
        errorOf(() => apply({ "file.yaml": point("ConfigMap", "foo", "e1") })),
        'errors in injection points: file.yaml: ConfigMap/foo has invalid "kpt.dev/config-injection" annotation value of "e1"',
      );
    });
    it("multiple distinct, valid injection points", () => {
      expect(() =>
        apply({
          "file.yaml": `${point("ConfigMap", "foo", "required")}---\n${point("MyType", "foo", "optional", "bigco.com/v2")}`,
        }),
      ).not.toThrow();
    });
    // Porch's first point has two errors (e1, e2); a package file gives a point one at most, so the
    // translation has the first point's one error and the second's: joined in the same order.
    it("multiple distinct, invalid injection points", () => {
      startsWithPorch(
        errorOf(() =>
          apply({
            "file.yaml": `${point("ConfigMap", "foo", "e1")}---\n${point("ConfigMap", "foo2", "e3")}`,
          }),
        ),
        'errors in injection points: file.yaml: ConfigMap/foo has invalid "kpt.dev/config-injection" annotation value of "e1", file.yaml: ConfigMap/foo2 has invalid "kpt.dev/config-injection" annotation value of "e3"',
      );
    });
    it("multiple ambiguous injection points", () => {
      const cm = point("ConfigMap", "foo", "optional");
      startsWithPorch(
        errorOf(() => apply({ "file.yaml": cm, "file2.yaml": cm, "file3.yaml": cm })),
        'errors in injection points: duplicate injection conditionType "config.injection.ConfigMap.foo" (file.yaml and file2.yaml), duplicate injection conditionType "config.injection.ConfigMap.foo" (file2.yaml and file3.yaml)',
      );
    });
  });

  describe(`TestSetInjectionPointConditionsAndGates${ws}`, () => {
    const withGates = `${KPTFILE}  readinessGates:
  - conditionType: test
  - conditionType: test3
status:
  conditions:
  - {type: test, status: "False", reason: test, message: test}
  - {type: test2, status: "True", reason: test2, message: test2}
  - {type: test3, status: "True", reason: test3, message: test3}
`;
    const notSelected = "no resource matched any injection selector for this injection point";
    const injected = (name: string) => `injected resource "${name}" from the downstream repository`;
    const cond = (type: string, ok: boolean, message: string) => ({
      type,
      status: ok ? "True" : "False",
      reason: ok ? "ConfigInjected" : "NoResourceSelected",
      message,
    });
    // The resources Porch's injected points got, and one of AnotherResource no injector names.
    const cluster: InjectableResource[] = [
      { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "my-injected-resource" }, data: { a: "b" } },
      ...["SomeResource", "AnotherResource"].map((kind) => ({
        apiVersion: "example.com/v1",
        kind,
        metadata: { name: kind === "SomeResource" ? "some-injected-resource" : "unnamed" },
        spec: { a: "b" },
      })),
    ];
    const injectors =
      "  injectors:\n  - name: my-injected-resource\n  - name: some-injected-resource\n  - name: another-injected-resource\n";
    const kptfileAfter = (files: Record<string, string>, kptfile = KPTFILE) => {
      const out = apply(files, injectors, cluster, kptfile);
      return data("Kptfile", out.files.get("Kptfile"));
    };
    const base = parse(KPTFILE);
    const three = (some: "optional" | "required") =>
      [
        point("ConfigMap", "foo", "optional"),
        point("SomeResource", "foo", some, "example.com/v1"),
        point("AnotherResource", "foo", "optional", "example.com/v1"),
      ].join("---\n");

    it("no injection points", () => {
      expect(kptfileAfter({})).toEqual(base);
    });
    it("no injection points, existing gates and conditions", () => {
      expect(kptfileAfter({}, withGates)).toEqual(parse(withGates));
    });
    // Not injected: ConfigMaps are there, but no injector names one.
    const nobody = "  injectors:\n  - name: another-injected-resource\n";
    const notInjected = (value: string) => {
      const out = apply({ "file.yaml": point("ConfigMap", "foo", value) }, nobody, cluster);
      return data("Kptfile", out.files.get("Kptfile"));
    };
    it("optional, not injected", () => {
      expect(notInjected("optional")).toEqual({
        ...base,
        status: { conditions: [cond("config.injection.ConfigMap.foo", false, notSelected)] },
      });
    });
    it("required, not injected", () => {
      expect(notInjected("required")).toEqual({
        ...base,
        info: { ...base.info, readinessGates: [{ conditionType: "config.injection.ConfigMap.foo" }] },
        status: { conditions: [cond("config.injection.ConfigMap.foo", false, notSelected)] },
      });
    });
    it("optional, injected", () => {
      expect(kptfileAfter({ "file.yaml": point("ConfigMap", "foo", "optional") })).toEqual({
        ...base,
        status: {
          conditions: [cond("config.injection.ConfigMap.foo", true, injected("my-injected-resource"))],
        },
      });
    });
    const threeConditions = [
      cond("config.injection.AnotherResource.foo", false, notSelected),
      cond("config.injection.ConfigMap.foo", true, injected("my-injected-resource")),
      cond("config.injection.SomeResource.foo", true, injected("some-injected-resource")),
    ];
    it("multiple optional", () => {
      expect(kptfileAfter({ "file.yaml": three("optional") })).toEqual({
        ...base,
        status: { conditions: threeConditions },
      });
    });
    it("mixed existing, optional, required", () => {
      const before = parse(withGates);
      expect(kptfileAfter({ "file.yaml": three("required") }, withGates)).toEqual({
        ...before,
        info: {
          ...before.info,
          readinessGates: ["config.injection.SomeResource.foo", "test", "test3"].map((t) => ({
            conditionType: t,
          })),
        },
        status: { conditions: [...threeConditions, ...before.status.conditions] },
      });
    });
  });

  describe(`TestEnsureConfigInjection${ws}`, () => {
    /** The package's files after applying, as YAML data: Porch's test compares the whole PRR. */
    const filesAfter = (injectors: string, files: Record<string, string>) => {
      const out = apply(files, injectors);
      return Object.fromEntries([...out.files].map(([path, text]) => [path, data(path, text)]));
    };
    const kptfileWith = (conditions: string[], gates: string[]) => ({
      ...parse(KPTFILE),
      info: { description: "Example", readinessGates: gates.map((conditionType) => ({ conditionType })) },
      status: { conditions: conditions.map((c) => JSON.parse(c)) },
    });
    const ok = (type: string, name: string) =>
      JSON.stringify({
        type,
        status: "True",
        message: `injected resource "${name}" from the downstream repository`,
        reason: "ConfigInjected",
      });
    const team = `apiVersion: hr.example.com/v1alpha1
kind: Team
metadata:
  name: team
  annotations:
    kpt.dev/config-injection: required
spec:
  chargeCode: example
`;
    const injectedTeam = {
      apiVersion: "hr.example.com/v1alpha1",
      kind: "Team",
      metadata: {
        name: "team",
        annotations: { "kpt.dev/config-injection": "required", "kpt.dev/injected-resource": "dev-team-beta" },
      },
      spec: { chargeCode: "cd" },
    };
    const cm = (name: string, value: string, db: string, injectedName?: string) => ({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: {
        name,
        annotations: {
          "kpt.dev/config-injection": value,
          ...(injectedName ? { "kpt.dev/injected-resource": injectedName } : {}),
        },
      },
      data: { db },
    });
    const yamlOf = (name: string, value: string) =>
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  annotations:\n    kpt.dev/config-injection: ${value}\ndata:\n  db: example\n`;

    it("empty injectors", () => {
      expect(filesAfter("", {})).toEqual({ Kptfile: parse(KPTFILE), "package-context.yaml": parse(CONTEXT) });
    });
    it("one ConfigMap injection point", () => {
      expect(
        filesAfter("  injectors:\n  - name: us-east1-endpoints\n", {
          "configmap.yaml": yamlOf("regional-endpoints", "required"),
        }),
      ).toEqual({
        Kptfile: kptfileWith(
          [ok("config.injection.ConfigMap.regional-endpoints", "us-east1-endpoints")],
          ["config.injection.ConfigMap.regional-endpoints"],
        ),
        "package-context.yaml": parse(CONTEXT),
        "configmap.yaml": cm(
          "regional-endpoints",
          "required",
          "db.us-east1.example.com",
          "us-east1-endpoints",
        ),
      });
    });
    it("one non-ConfigMap injection point", () => {
      expect(
        filesAfter("  injectors:\n  - name: dev-team-beta\n    group: hr.example.com\n    kind: Team\n", {
          "team.yaml": team,
        }),
      ).toEqual({
        Kptfile: kptfileWith(
          [ok("config.injection.Team.team", "dev-team-beta")],
          ["config.injection.Team.team"],
        ),
        "package-context.yaml": parse(CONTEXT),
        "team.yaml": injectedTeam,
      });
    });
    it("mixed injection points", () => {
      expect(
        filesAfter(
          "  injectors:\n  - name: us-east2-endpoints\n  - name: dev-team-beta\n    group: hr.example.com\n    kind: Team\n",
          {
            "more.yaml": `${yamlOf("my-cm", "optional").replace("db: example", "db: db.example.com")}---\n${team}`,
          },
        ),
      ).toEqual({
        Kptfile: kptfileWith(
          [
            ok("config.injection.ConfigMap.my-cm", "us-east2-endpoints"),
            ok("config.injection.Team.team", "dev-team-beta"),
          ],
          ["config.injection.Team.team"],
        ),
        "package-context.yaml": parse(CONTEXT),
        "more.yaml": [cm("my-cm", "optional", "db.us-east2.example.com", "us-east2-endpoints"), injectedTeam],
      });
    });
  });
});
