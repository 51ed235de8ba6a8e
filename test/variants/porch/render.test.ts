import { describe, expect, it } from "vitest";
import { expandPackageVariantSet } from "../../../src/variants/expand.js";
import { parseVariantFile } from "../../../src/variants/parse.js";
import type { RepositoryInfo } from "../../../src/variants/repositories.js";

/**
 * Porch's controller tests, translated: nephio-project/porch at 74d82d569e37,
 * controllers/packagevariantsets/pkg/controllers/packagevariantset/render_test.go
 * TestRenderPackageVariantSpec and TestCopyAndOverlayMapExpr. Porch renders one target's
 * PackageVariant spec from the set's template (pvContext: repoDefault my-repo-1, packageDefault p); here
 * the set's target is the explicit repository my-repo-1 with package name p, the template the Go case's
 * (written as YAML, as a user writes it), and the spec is that of the variant the set expands to.
 * Translated to porchlight's model: Porch's `revision: 2` is `v2`; an empty adoption or deletion policy
 * (which Porch's variant controller reads as adoptNone and delete) is that default, and `paused` false.
 * The upstream PackageRevision (Porch's object `p` in namespace `default`, with labels and annotations)
 * is here the revision the upstream names, `up-repo.up-pkg.v2` — porchlight's (and Porch's
 * repository-backed) name for it — in namespace `default`, with the same labels and annotations, those
 * `rpkg annotate` keeps for it. The Repository objects are registrations with the same labels.
 */

const REPOSITORIES: RepositoryInfo[] = [
  { name: "my-repo-1", labels: { foo: "bar", abc: "def" } },
  { name: "my-repo-2", labels: { foo: "bar", abc: "def", efg: "hij" } },
];
const UPSTREAM_NAME = "up-repo.up-pkg.v2";
const REVISIONS = new Map([
  [
    UPSTREAM_NAME,
    {
      labels: { vendor: "bigco.com", product: "snazzy", version: "1.6.8" },
      annotations: { "bigco.com/team": "us-platform" },
    },
  ],
]);

function render(template: string, repo = "my-repo-1", pkg = "p", upstreamPackage = "up-pkg") {
  const text = `apiVersion: config.porch.kpt.dev/v1alpha2
kind: PackageVariantSet
metadata: {name: my-pvs}
spec:
  upstream: {repo: up-repo, package: ${upstreamPackage}, revision: 2}
  targets:
  - repositories:
    - name: ${repo}
      packageNames: [${pkg}]
${template ? `    template:\n${template.replace(/^/gm, "      ")}` : ""}`;
  const parsed = parseVariantFile("pvs.yaml", text);
  expect(parsed.problems).toEqual([]);
  const [set] = parsed.sets;
  if (!set) throw new Error("no set parsed");
  const expanded = expandPackageVariantSet(set, REPOSITORIES, { namespace: "default", revisions: REVISIONS });
  expect(expanded.problems).toEqual([]);
  expect(expanded.variants).toHaveLength(1);
  return expanded.variants[0]?.variant.spec;
}

/** Porch's expected spec in porchlight's model (see above). */
const spec = (fields: Record<string, unknown>, upstreamPackage = "up-pkg") => ({
  upstream: { repo: "up-repo", package: upstreamPackage, revision: "v2" },
  adoptionPolicy: "adoptNone",
  deletionPolicy: "delete",
  paused: false,
  ...fields,
});
const downstream = (repo: string, pkg: string) => ({ downstream: { repo, package: pkg } });

describe("Porch TestRenderPackageVariantSpec", () => {
  it("no template", () => {
    expect(render("")).toEqual(spec(downstream("my-repo-1", "p")));
  });
  it("template downstream.repo", () => {
    expect(render("downstream:\n  repo: my-repo-2\n")).toEqual(spec(downstream("my-repo-2", "p")));
  });
  it("template downstream.package", () => {
    expect(render("downstream:\n  package: new-p\n")).toEqual(spec(downstream("my-repo-1", "new-p")));
  });
  it("template adoption and deletion", () => {
    expect(render("adoptionPolicy: adoptExisting\ndeletionPolicy: delete\n")).toEqual(
      spec({ ...downstream("my-repo-1", "p"), adoptionPolicy: "adoptExisting", deletionPolicy: "delete" }),
    );
  });
  it("template static labels and annotations", () => {
    expect(render("labels: {foo: bar, hello: there}\nannotations: {foobar: barfoo}\n")).toEqual(
      spec({
        ...downstream("my-repo-1", "p"),
        labels: { foo: "bar", hello: "there" },
        annotations: { foobar: "barfoo" },
      }),
    );
  });
  it("template static packageContext", () => {
    expect(
      render("packageContext:\n  data: {foo: bar, hello: there}\n  removeKeys: [foobar, barfoo]\n"),
    ).toEqual(
      spec({
        ...downstream("my-repo-1", "p"),
        packageContext: { data: { foo: "bar", hello: "there" }, removeKeys: ["barfoo", "foobar"] },
      }),
    );
  });
  const downstreamExprs = `downstream:
  repoExpr: "'my-repo-2'"
  packageExpr: "repoDefault + '-' + packageDefault"
`;
  it("template downstream with expressions", () => {
    expect(render(downstreamExprs)).toEqual(spec(downstream("my-repo-2", "my-repo-1-p")));
  });
  it("template labels and annotations with expressions", () => {
    const template = `${downstreamExprs}labels: {foo: bar, hello: there}
labelExprs:
- key: foo
  valueExpr: repoDefault
- keyExpr: "repository.labels['efg']"
  valueExpr: "packageDefault + '-' + repository.name"
- key: hello
  value: goodbye
annotations:
  bigco.com/sample-annotation: some-annotation
  foo.org/id: "123456"
annotationExprs:
- key: foo.org/id
  value: "54321"
- key: bigco.com/team
  valueExpr: "upstream.annotations['bigco.com/team']"
`;
    expect(render(template)).toEqual(
      spec({
        ...downstream("my-repo-2", "my-repo-1-p"),
        labels: { foo: "my-repo-1", hello: "goodbye", hij: "p-my-repo-2" },
        annotations: {
          "bigco.com/sample-annotation": "some-annotation",
          "foo.org/id": "54321",
          "bigco.com/team": "us-platform",
        },
      }),
    );
  });
  it("template with packageContext with expressions", () => {
    const template = `packageContext:
  data: {foo: bar, hello: there}
  dataExprs:
  - key: foo
    valueExpr: upstream.name
  - keyExpr: upstream.namespace
    valueExpr: upstream.name
  - keyExpr: upstream.name
    value: foo
  removeKeys: [foobar, barfoo]
  removeKeyExprs: ["repository.labels['abc']"]
`;
    expect(render(template)).toEqual(
      spec({
        ...downstream("my-repo-1", "p"),
        packageContext: {
          data: { foo: UPSTREAM_NAME, hello: "there", default: UPSTREAM_NAME, [UPSTREAM_NAME]: "foo" },
          removeKeys: ["barfoo", "def", "foobar"],
        },
      }),
    );
  });
  it("template injectors", () => {
    const template = `injectors:
- {group: kpt.dev, version: v1alpha1, kind: Foo, name: bar}
- {group: kpt.dev, version: v1alpha1, kind: Foo, nameExpr: "repository.labels['abc']"}
- nameExpr: "repository.name + '-test'"
`;
    expect(render(template)).toEqual(
      spec({
        ...downstream("my-repo-1", "p"),
        injectors: [
          { group: "kpt.dev", version: "v1alpha1", kind: "Foo", name: "bar" },
          { group: "kpt.dev", version: "v1alpha1", kind: "Foo", name: "def" },
          { name: "my-repo-1-test" },
        ],
      }),
    );
  });
  it("pipeline injectors", () => {
    const template = `pipeline:
  validators:
  - {image: "foo:bar", name: hey}
  - image: "foo:bar"
    configMap: {k1: v1, k2: v2}
    configMapExprs:
    - key: k1
      valueExpr: repository.name
    - keyExpr: "'k3'"
      value: bar
  mutators:
  - image: mutates
    configMapExprs:
    - key: k1
      value: yo
`;
    expect(render(template)).toEqual(
      spec({
        ...downstream("my-repo-1", "p"),
        pipeline: {
          validators: [
            { image: "foo:bar", name: "hey" },
            { image: "foo:bar", configMap: { k1: "my-repo-1", k2: "v2", k3: "bar" } },
          ],
          mutators: [{ image: "mutates", configMap: { k1: "yo" } }],
        },
      }),
    );
  });
});

/**
 * TestCopyAndOverlayMapExpr: Porch's copyAndOverlayMapExpr is what every `…Exprs` field of a template
 * goes through; here the map is a template's `labels` and the expressions its `labelExprs`, with
 * repoDefault foo-repo and packageDefault bar-package (an explicit target foo-repo of upstream package
 * bar-package).
 */
describe("Porch TestCopyAndOverlayMapExpr", () => {
  const labels = (template: string) => render(template, "foo-repo", "bar-package", "bar-package")?.labels;
  it("empty starting map", () => {
    const template = `labels: {}
labelExprs:
- {key: foo, value: bar}
- {keyExpr: repoDefault, value: barbar}
- {key: bar, valueExpr: packageDefault}
`;
    expect(labels(template)).toEqual({ foo: "bar", "foo-repo": "barbar", bar: "bar-package" });
  });
  it("static overlay", () => {
    const template = `labels: {foo: bar, bar: foo}
labelExprs:
- {key: foo, value: new-bar}
- {key: foofoo, value: barbar}
`;
    expect(labels(template)).toEqual({ foo: "new-bar", bar: "foo", foofoo: "barbar" });
  });
  it("exprs overlay", () => {
    const template = `labels: {foo: bar, bar: foo}
labelExprs:
- {keyExpr: "'foo'", value: new-bar}
- {key: bar, valueExpr: packageDefault}
`;
    expect(labels(template)).toEqual({ foo: "new-bar", bar: "bar-package" });
  });
});
