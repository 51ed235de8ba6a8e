import { describe, expect, it } from "vitest";
import { treeFromText } from "../../src/kpt/tree.js";
import { clonedPackage } from "../../src/merge/index.js";
import { mergeResources } from "../../src/merge/resources.js";

/**
 * `pkg get` writes each file as `kpt pkg get` (v1.0.0-beta.56) writes it: the expectations below were
 * read off kpt, fetching the same files from a local git repository.
 */

const KPTFILE = "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: pkg\n";
const LOCK = { repo: "file:///tmp/up", directory: "/pkg", ref: "main", commit: "a".repeat(40) };

function got(files: Record<string, string>): Record<string, string> {
  const out = clonedPackage(treeFromText({ Kptfile: KPTFILE, ...files }), LOCK, "k");
  return Object.fromEntries([...out].map(([p, b]) => [p, b.toString("utf8")]));
}

describe("pkg get writes files as kpt pkg get does", () => {
  it("keeps a list's wide indentation when comment lines stand between its key and its first item", () => {
    const svc =
      "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  ports:\n    # agent\n    - name: a\n      port: 1\n";
    const role =
      'apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata:\n  name: r\nrules:\n  # leader election\n  - apiGroups: [""]\n    verbs: ["get"]\n';
    const out = got({ "svc.yaml": svc, "role.yaml": role });
    expect(out["svc.yaml"]).toBe(
      "apiVersion: v1\nkind: Service\nmetadata: # kpt-merge: /web\n  name: web\n  annotations:\n    internal.kpt.dev/upstream-identifier: '|Service|default|web'\nspec:\n  ports:\n    # agent\n    - name: a\n      port: 1\n",
    );
    expect(out["role.yaml"]).toBe(
      'apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata: # kpt-merge: /r\n  name: r\n  annotations:\n    internal.kpt.dev/upstream-identifier: \'rbac.authorization.k8s.io|Role|default|r\'\nrules:\n  # leader election\n  - apiGroups: [""]\n    verbs: ["get"]\n',
    );
  });

  it("keeps the blank line after a later document's head comment", () => {
    const cm = (n: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${n}\ndata:\n  k: v\n`;
    const out = got({ "cm.yaml": `# head\n${cm("a")}---\n# between\n\n${cm("b")}` });
    const merged = (n: string) =>
      `apiVersion: v1\nkind: ConfigMap\nmetadata: # kpt-merge: /${n}\n  name: ${n}\n  annotations:\n    internal.kpt.dev/upstream-identifier: '|ConfigMap|default|${n}'\ndata:\n  k: v\n`;
    expect(out["cm.yaml"]).toBe(`# head\n${merged("a")}---\n# between\n\n${merged("b")}`);
  });

  it("leaves an upstream-identifier that already holds kpt's value in its own style", () => {
    const cm = (n: string, rest: string) =>
      `apiVersion: v1\nkind: ConfigMap\nmetadata: # kpt-merge: /${n}\n  name: ${n}\n  annotations:\n${rest}`;
    const out = got({
      "double.yaml": cm("d", '    internal.kpt.dev/upstream-identifier: "|ConfigMap|default|d" # c\n'),
      "literal.yaml": cm("l", "    internal.kpt.dev/upstream-identifier: |-\n      |ConfigMap|default|l\n"),
      "stale.yaml": cm("s", "    internal.kpt.dev/upstream-identifier: other\n"),
      "apps.yaml":
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: # kpt-merge: ns/web\n  name: web\n  namespace: ns\n  annotations:\n    internal.kpt.dev/upstream-identifier: apps|Deployment|ns|web\n",
    });
    expect(out["double.yaml"]).toBe(
      cm("d", '    internal.kpt.dev/upstream-identifier: "|ConfigMap|default|d"\n'),
    );
    expect(out["literal.yaml"]).toBe(
      cm("l", "    internal.kpt.dev/upstream-identifier: |-\n      |ConfigMap|default|l\n"),
    );
    expect(out["stale.yaml"]).toBe(
      cm("s", "    internal.kpt.dev/upstream-identifier: '|ConfigMap|default|s'\n"),
    );
    expect(out["apps.yaml"]).toBe(
      "apiVersion: apps/v1\nkind: Deployment\nmetadata: # kpt-merge: ns/web\n  name: web\n  namespace: ns\n  annotations:\n    internal.kpt.dev/upstream-identifier: apps|Deployment|ns|web\n",
    );
  });

  it("drops the fetched Kptfile's namespace and comments, as kpt writes the new Kptfile", () => {
    const kf =
      '# head\napiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: p2 # name comment\n  namespace: ns1\n  annotations:\n    config.kubernetes.io/local-config: "true"\ninfo:\n  description: x # desc\n# trailing comment\n';
    const out = clonedPackage(treeFromText({ Kptfile: kf }), LOCK, "k2");
    expect(out.get("Kptfile")?.toString("utf8")).toBe(
      `apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: k2\n  annotations:\n    config.kubernetes.io/local-config: "true"\nupstream:\n  type: git\n  git:\n    repo: file:///tmp/up\n    directory: /pkg\n    ref: main\n  updateStrategy: resource-merge\nupstreamLock:\n  type: git\n  git:\n    repo: file:///tmp/up\n    directory: /pkg\n    ref: main\n    commit: ${"a".repeat(40)}\ninfo:\n  description: x\n`,
    );
  });

  it("clears the annotations kpt's writer clears, and leaves the others a file holds", () => {
    const out = got({
      "cm.yaml":
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n  annotations:\n    a: b\n    config.kubernetes.io/path: 'x.yaml'\n    config.kubernetes.io/index: '0'\n    internal.config.kubernetes.io/path: 'x.yaml'\n    internal.config.kubernetes.io/index: '0'\n    internal.config.kubernetes.io/package-path: '/x'\n    internal.config.kubernetes.io/seqindent: 'wide'\n    internal.config.kubernetes.io/annotations-migration-resource-id: '7'\n    config.k8s.io/path: 'x.yaml'\n    config.k8s.io/index: '0'\n    config.kubernetes.io/merge-source: 'updated'\n    config.kubernetes.io/local-config: 'true'\ndata:\n  k: v\n",
    });
    expect(out["cm.yaml"]).toBe(
      "apiVersion: v1\nkind: ConfigMap\nmetadata: # kpt-merge: /cm\n  name: cm\n  annotations:\n    a: b\n    internal.config.kubernetes.io/package-path: '/x'\n    config.k8s.io/path: 'x.yaml'\n    config.k8s.io/index: '0'\n    config.kubernetes.io/merge-source: 'updated'\n    config.kubernetes.io/local-config: 'true'\n    internal.kpt.dev/upstream-identifier: '|ConfigMap|default|cm'\ndata:\n  k: v\n",
    );
  });
});

describe("pkg update writes files as kpt pkg update does", () => {
  it("clears the merge's and the writer's annotations from a merged resource (read off kpt)", () => {
    const cm = (x: string, more = "") =>
      `apiVersion: v1\nkind: ConfigMap\nmetadata: # kpt-merge: /a\n  name: a\n  annotations:\n    config.kubernetes.io/merge-source: 'updated'\n    keep: me\n${more}    internal.kpt.dev/upstream-identifier: '|ConfigMap|default|a'\ndata:\n  x: '${x}' # c\n`;
    const files = (text: string) => new Map([["cm.yaml", text]]);
    const out = mergeResources(files(cm("1")), files(cm("2")), files(cm("1", '    local: "yes"\n')));
    expect(out.files.get("cm.yaml")).toBe(
      "apiVersion: v1\nkind: ConfigMap\nmetadata: # kpt-merge: /a\n  name: a\n  annotations:\n    keep: me\n    local: \"yes\"\n    internal.kpt.dev/upstream-identifier: '|ConfigMap|default|a'\ndata:\n  x: '2' # c\n",
    );
  });
});
