import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { treeFromText } from "../../src/kpt/tree.js";
import { MergeError, mergePackage } from "../../src/merge/index.js";

/**
 * Merge causes found by the generated differential run (test/merge/gen), each as one small case:
 * `fixtures/<name>.txt` holds the original, updated and local `r.yaml` and the bytes kpt
 * v1.0.0-beta.56 wrote for it (`kpt pkg update` on this machine), separated by `=====` lines.
 */

const KF = "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: pkg\n";

function fixture(name: string): {
  original: string;
  updated: string;
  local: string;
  kpt: string;
  ours?: string;
} {
  const [original, updated, local, kpt, ours] = readFileSync(
    join(import.meta.dirname, "fixtures", `${name}.txt`),
    "utf8",
  ).split("=====\n");
  return { original: original!, updated: updated!, local: local!, kpt: kpt!, ours };
}

function update(f: { original: string; updated: string; local: string }): string {
  const r = mergePackage({
    original: treeFromText({ Kptfile: KF, "r.yaml": f.original }),
    updated: treeFromText({ Kptfile: KF, "r.yaml": f.updated }),
    local: treeFromText({ Kptfile: KF, "r.yaml": f.local }),
  });
  return r.tree.get("r.yaml")?.toString("utf8") ?? "";
}

const CASES: Record<string, string> = {
  "key comments changed upstream reach the local keys unless changed locally (head, line, first key, foot)":
    "key-comments",
  "a list element added upstream loses its own head comment, keeps its fields' comments": "element-comments",
  "Kustomization configMapGenerator and secretGenerator entries merge by name": "kustomization-generators",
  "schema comments ($ref to a Kubernetes definition, inline merge key) make lists merge by key":
    "schema-comments",
  "annotations removed upstream and empty locally come back in block style with kpt's annotation":
    "empty-annotations",
  "a foot comment added upstream stays on its key, before kpt's annotation and a blank line": "foot-comments",
  "a comment at the end of a document, added upstream, is carried": "document-foot",
  "a list empty locally stays `[]`; a list the merge empties goes": "empty-local-list",
  "a foot comment added upstream before kpt's annotation stays the foot of its key, the local foot too":
    "foot-before-annotation",
  "metadata's foot comment stays before the annotations kpt adds, then a blank line":
    "metadata-foot-annotations",
  "an annotations map kpt sets again after the merge emptied it gets a plain key": "quoted-annotations-key",
  "a list emptied upstream stays `[]` locally, its elements gone": "emptied-list-upstream",
  "an element with head comments merged into a flow list: the comments inside the brackets":
    "flow-head-comment",
  "comments upstream puts on list keys (head and line) reach a list the local side left alone":
    "list-key-comments",
  "quoted and plain keys: a local key keeps its style, a key added upstream keeps upstream's": "key-style",
  "Kustomization generators removed upstream go (edited locally too), other lists are atomic":
    "kustomization-generators-removed",
  "schema comments on nested fields: head-comment $ref, Container $ref, inline merge keys, scalar lists":
    "schema-comments-nested",
  "an empty annotations field is cleared with its comments and set again after metadata's other fields":
    "emptied-annotations-key",
  "an empty annotations field's foot comment goes with it; a comment after a valueless one stays":
    "emptied-annotations-foot",
  "a document's last comment added, changed or removed upstream, the resource otherwise unchanged":
    "document-foot-only",
  "a block list merged into a flow one: item head comments before the item, feet of nested maps before their `}`":
    "flow-nested-comments",
  "line comments inside a flow collection end with a comma, a foot on a scalar item too; a flow value keeps its line comment":
    "flow-line-comments",
  "a value with line breaks set on a single-quoted local field stays single-quoted, a blank line for each break":
    "single-quoted-breaks",
  "a foot comment added upstream at a document's end, with more after it locally, is written at the innermost block's indentation":
    "foot-before-more",
  "a foot comment with an outer block's foot after it is written at the innermost block's indentation":
    "foot-before-outer-foot",
  "a compact list's foot comment on its last scalar item, then a key added upstream: a blank line between":
    "list-foot-blank-line",
  "a null kind, name or namespace (`null`, `~`) is empty to the match, as kyaml reads it (a kind cleared upstream is the same resource)":
    "null-identity",
};

describe("pkg update merges as kpt does", () => {
  for (const [name, file] of Object.entries(CASES)) {
    it(name, () => {
      const f = fixture(file);
      expect(update(f)).toBe(f.kpt);
    });
  }
});

describe("pkg update refuses where kpt refuses", () => {
  const refusal = (f: { original: string; updated: string; local: string }) => {
    try {
      update(f);
    } catch (e) {
      if (e instanceof MergeError) return { kpt: e.kptText, ours: e.message };
    }
    return undefined;
  };
  const deploy = (name: string, replicas: number, comment = "") =>
    `apiVersion: apps/v1\nkind: Deployment\nmetadata:${comment}\n  name: ${name}\nspec:\n  replicas: ${replicas}\n`;

  it("two resources of one side the merge matches as one: a local copy with its `# kpt-merge` comment (kpt's table)", () => {
    const copy = (n: string) =>
      deploy(n, 3, " # kpt-merge: default/web").replace("  name", "  namespace: my\n  name");
    const r = refusal({
      original: deploy("web", 3),
      updated: deploy("web", 4),
      local: `${copy("web-1")}---\n${copy("web-2")}`,
    });
    expect(r?.kpt).toBe(
      'found duplicate "local" resources in file "r.yaml", please refer to "update" documentation for the fix',
    );
    expect(r?.ours).toMatch(
      /^r\.yaml: Deployment\/my\/web-1 and Deployment\/my\/web-2 \(documents 1 and 2\)/,
    );
  });

  it("two same resources added upstream, or in all three versions alike", () => {
    expect(
      refusal({
        original: deploy("a", 1),
        updated: `${deploy("a", 1)}---\n${deploy("a", 2)}`,
        local: deploy("a", 1),
      })?.kpt,
    ).toBe(
      'found duplicate "updated upstream" resources in file "r.yaml", please refer to "update" documentation for the fix',
    );
    const same = "a: 1\n---\nb: 2\n";
    expect(refusal({ original: same, updated: same, local: same })?.kpt).toMatch(
      /^found duplicate "local" resources/,
    );
  });
});

/**
 * Where kpt destroys local data, porchlight does the safe thing instead (docs/update-deviations.md).
 * The fixture holds kpt's output (recorded on this machine) and ours, after the three inputs.
 */
describe("pkg update deviates from kpt where kpt loses local data", () => {
  const DEVIATIONS: {
    name: string;
    fixture: string;
    /** What kpt's output holds, what it lacks, and whether it is unreadable YAML. */
    kpt: { holds: string[]; lacks?: string[]; unreadable?: true };
    /** What porchlight's holds. */
    ours: string[];
  }[] = [
    {
      name: "an empty element (`- {}`) in a local list: kpt empties the whole list, porchlight drops only that element",
      fixture: "deviation-empty-element",
      kpt: { holds: ["env: []"] },
      ours: ["- name: B\n          value: b\n        - name: C\n          value: c\n"],
    },
    {
      name: "a merge key onto an anchor (`<<: *defaults`): kpt's update drops it, and the fields it brought; porchlight keeps it",
      fixture: "deviation-alias-merge-key",
      kpt: { holds: ["service:\n  port: 9090\n"] },
      ours: ["service:\n  !!merge <<: *defaults\n  port: 9090\n"],
    },
    {
      name: "an element without its merge key: kpt drops it and other elements of the list, porchlight keeps them all",
      fixture: "deviation-missing-key",
      kpt: { holds: [], lacks: ["name: side"] },
      ours: ["      - image: app:1\n      - name: side\n        image: side:1\n"],
    },
    {
      name: "an emptied block map under a key with a line comment: kpt writes `{}` at column 0 on the next line (unreadable YAML), porchlight `key: {} # comment`",
      fixture: "deviation-empty-block-key-comment",
      kpt: {
        holds: ['spec: # {"$ref": "#/definitions/io.k8s.api.core.v1.PodSpec"}\n{}\n'],
        unreadable: true,
      },
      ours: ['spec: {} # {"$ref": "#/definitions/io.k8s.api.core.v1.PodSpec"}\n'],
    },
    {
      name: "a key comment merged onto a key of a flow map: kpt turns the key into other keys, porchlight leaves the comment out",
      fixture: "deviation-flow-key-comment",
      kpt: { holds: ["{'containers:': '', # c"] },
      ours: ["spec: {containers: [{name: app}]}\n"],
    },
    {
      name: "a key comment merged onto a key whose value stays in flow style: kpt moves it to a later key (a schema comment onto another field) or drops it, porchlight writes it after the value",
      fixture: "deviation-flow-value-key-comment",
      kpt: {
        holds: ['hosts: # {"$ref": "#/definitions/io.k8s.api.core.v1.PodSpec"}\n'],
        lacks: ["team labels"],
      },
      ours: [
        "labels: {app: demo, env: prod} # team labels\n",
        "spec: {containers: [{name: main, image: 'main:1'}]} # {\"$ref\"",
      ],
    },
  ];

  it.each(DEVIATIONS)("$name", ({ fixture: file, kpt, ours }) => {
    const f = fixture(file);
    const got = update(f);
    expect(got).toBe(f.ours);
    for (const text of kpt.holds) expect(f.kpt).toContain(text);
    for (const text of kpt.lacks ?? []) expect(f.kpt).not.toContain(text);
    for (const text of ours) expect(got).toContain(text);
    if (kpt.unreadable) expect(parseAllDocuments(f.kpt).some((d) => d.errors.length > 0)).toBe(true);
  });
});
