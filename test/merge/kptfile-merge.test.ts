import { describe, expect, it } from "vitest";
import { readKptfileStruct } from "../../src/kpt/kptfile.js";
import { formatKptfile, mergeKptfile } from "../../src/merge/kptfile.js";
import { MergeError } from "../../src/merge/types.js";

/**
 * A subpackage's Kptfile through `pkg update` is what `kpt pkg update` (v1.0.0-beta.56) writes: each
 * expectation below was read off kpt, updating the same origin → updated Kptfiles from a local git
 * upstream over the local one (cases of kpt's kptfileutil table and beside it).
 */

const head = (name: string) => `apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: ${name}\n`;

function update(origin: string, updated: string, local: string): string {
  const read = (t: string) => readKptfileStruct(t, "sub/Kptfile");
  return formatKptfile(mergeKptfile(read(local), read(updated), read(origin), false, "sub/Kptfile"));
}

describe("a Kptfile merged by pkg update, as kpt merges it", () => {
  it("keeps a pipeline emptied upstream as `pipeline: {}`", () => {
    const out = update(
      `${head("foo")}pipeline:\n  mutators:\n    - image: foo:bar\n`,
      head("foo"),
      `${head("foo")}pipeline:\n  mutators:\n    - image: my:image\n    - image: foo:bar\n`,
    );
    expect(out).toBe(`${head("foo")}pipeline: {}\n`);
  });

  it("takes status from the merge, and keeps info and status emptied upstream as `{}`", () => {
    const gates = "info:\n  readinessGates:\n    - conditionType: foo\n";
    const conditions =
      'status:\n  conditions:\n    - type: foo\n      status: "True"\n      reason: reason\n      message: message\n';
    expect(update(head("foo"), `${head("foo")}${gates}${conditions}`, head("foo"))).toBe(
      `${head("foo")}${gates}${conditions}`,
    );
    expect(
      update(`${head("foo")}${gates}${conditions}`, head("foo"), `${head("foo")}${gates}${conditions}`),
    ).toBe(`${head("foo")}info: {}\nstatus: {}\n`);
  });

  it("takes conditions whole from upstream when upstream changed them, else keeps the local ones", () => {
    const cond = (...c: [string, string][]) =>
      `${head("foo")}status:\n  conditions:\n${c.map(([t, s]) => `    - type: ${t}\n      status: ${s}\n`).join("")}`;
    expect(
      update(
        cond(["foo", '"True"'], ["bar", '"False"']),
        cond(["foo", '"True"'], ["zork", "Unknown"]),
        cond(["xandar", '"True"'], ["foo", '"True"']),
      ),
    ).toBe(cond(["foo", '"True"'], ["zork", "Unknown"]));
    expect(
      update(cond(["a", '"True"']), cond(["a", '"True"']), cond(["a", '"False"'], ["b", '"True"'])),
    ).toBe(cond(["a", '"False"'], ["b", '"True"']));
  });

  it("merges functions by name only when every function of a side has one; else takes the list whole", () => {
    const sr = (v: string, name = "") =>
      `    - image: gcr.io/kpt-fn/search-replace:v0.1\n${name}      configMap:\n        by-value: ${v}\n`;
    const fns = (...f: string[]) => `${head("pipeline")}pipeline:\n  mutators:\n${f.join("")}`;
    const out = update(
      fns(sr("foo"), sr("abc")),
      fns(sr("foo2"), sr("abc2")),
      fns(
        sr("mine", "      name: my-new-function\n"),
        "    - image: gcr.io/kpt-fn/generate-folders:v0.1\n",
        sr("foo"),
      ),
    );
    expect(out).toBe(fns(sr("foo2"), sr("abc2")));
  });

  it("writes every field as kpt's Go struct holds it: strings quoted, nulls dropped from lists, fields in order", () => {
    const kf = [
      head("1.0"),
      "  labels: {b: 2, a: yes}\n",
      "info:\n  emails: [1, ~]\n  description: 0x10\n  readinessGates:\n    - {}\n",
      "pipeline:\n  validators:\n    - exec: x\n      configMap: {b: true, n: 1, e: ~}\n",
      "      selectors:\n        - annotations: {z: 1}\n          namespace: ns\n          labels: {l: on}\n          name: n\n          kind: K\n",
      "status:\n  conditions:\n    - message: |\n        two\n        lines\n",
    ].join("");
    expect(update(kf, kf, kf)).toBe(
      [
        'apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: "1.0"\n  labels:\n    a: "yes"\n    b: "2"\n',
        'info:\n  emails:\n    - "1"\n  description: "0x10"\n  readinessGates:\n    - conditionType: ""\n',
        'pipeline:\n  validators:\n    - exec: x\n      configMap:\n        b: "true"\n        e: ""\n        "n": "1"\n',
        '      selectors:\n        - kind: K\n          name: "n"\n          namespace: ns\n          labels:\n            l: "on"\n          annotations:\n            z: "1"\n',
        'status:\n  conditions:\n    - type: ""\n      status: ""\n      message: |\n        two\n        lines\n',
      ].join(""),
    );
  });

  it("refuses, as kpt does, a list whose items all have names on one side and not on a later one", () => {
    const refusal = (origin: string, updated: string, local: string) => {
      try {
        update(origin, updated, local);
      } catch (e) {
        if (e instanceof MergeError) return { kpt: e.kptText, ours: e.message };
      }
      return undefined;
    };
    const local = `${head("foo")}pipeline:\n  mutators:\n    - image: a:1\n      name: mine\n`;
    const updated = `${head("foo")}pipeline:\n  mutators:\n    - image: b:1\n`;
    const r = refusal(head("foo"), updated, local);
    expect(r?.kpt).toBe("conflicting merge keys [name,] for field pipeline.mutators");
    expect(r?.ours).toMatch(
      /^sub\/Kptfile: pipeline\.mutators: every item has a name in local Kptfile, not in the updated upstream one/,
    );
    const sel = (s: string) =>
      `${head("foo")}pipeline:\n  mutators:\n    - name: f\n      image: a:1\n      selectors:\n        - ${s}\n`;
    expect(refusal(sel("name: x"), sel("kind: K"), sel("name: x"))?.kpt).toBe(
      "conflicting merge keys [name,] for field selectors",
    );
  });
});
