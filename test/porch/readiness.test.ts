import { describe, expect, it } from "vitest";
import { kptfileChanges, patchKptfile, readinessOfKptfile, unmetGates } from "../../src/porch/readiness.js";

const KPTFILE = `apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: edge # the edge team's
  labels:
    tier: gold
info:
  description: an edge site
  readinessGates:
    - conditionType: a.example/One
    - conditionType: b.example/Two
status:
  conditions:
    - type: a.example/One
      status: "True"
      reason: Done
    - type: Rendered
      status: "True"
      reason: RenderSuccess
`;

describe("a revision's readiness, read from its Kptfile and written back as Porch's PatchKptfile", () => {
  it("reads the gates and conditions, and names the gates whose condition is not True", () => {
    const r = readinessOfKptfile(KPTFILE, "Kptfile");
    expect(r.gates).toEqual([{ conditionType: "a.example/One" }, { conditionType: "b.example/Two" }]);
    expect(r.conditions[0]).toEqual({ type: "a.example/One", status: "True", reason: "Done" });
    expect(unmetGates(r)).toEqual(["b.example/Two"]);
    expect(unmetGates({ gates: [], conditions: [] })).toEqual([]);
    expect(readinessOfKptfile("{not: [yaml", "Kptfile")).toEqual({ gates: [], conditions: [] });
  });

  it.each([
    {
      what: "a condition updated in place, its reason dropped when the new one has none",
      changes: {
        conditions: [
          { type: "a.example/One", status: "False" },
          { type: "Rendered", status: "True", reason: "RenderSuccess" },
        ],
      },
      want: KPTFILE.replace('status: "True"\n      reason: Done\n', 'status: "False"\n'),
    },
    {
      what: "a new condition appended, one left out removed",
      changes: {
        conditions: [
          { type: "Rendered", status: "True", reason: "RenderSuccess" },
          { type: "b.example/Two", status: "True" },
        ],
      },
      want: KPTFILE.replace(
        '    - type: a.example/One\n      status: "True"\n      reason: Done\n',
        "",
      ).replace(
        "reason: RenderSuccess\n",
        'reason: RenderSuccess\n    - type: b.example/Two\n      status: "True"\n',
      ),
    },
    {
      what: "gates synced: kept in order, the missing one removed, a new one appended",
      changes: { gates: [{ conditionType: "c.example/Three" }, { conditionType: "a.example/One" }] },
      want: KPTFILE.replace("    - conditionType: b.example/Two\n", "    - conditionType: c.example/Three\n"),
    },
    {
      what: "labels replaced",
      changes: { labels: { tier: "silver" } },
      want: KPTFILE.replace("tier: gold", "tier: silver"),
    },
  ])("writes $what, keeping every other byte", ({ changes, want }) => {
    expect(patchKptfile(KPTFILE, "Kptfile", changes)).toBe(want);
  });

  it("changes nothing when the Kptfile already says it", () => {
    const same = readinessOfKptfile(KPTFILE, "Kptfile");
    expect(
      patchKptfile(KPTFILE, "Kptfile", {
        gates: same.gates,
        conditions: same.conditions,
        labels: { tier: "gold" },
      }),
    ).toBeUndefined();
  });

  it("adds gates to a Kptfile without any, and a create adds labels to the Kptfile's", () => {
    const bare = "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: x\n  labels:\n    a: b\n";
    expect(
      patchKptfile(bare, "Kptfile", { add: true, labels: { c: "d" }, gates: [{ conditionType: "G" }] }),
    ).toBe(
      "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: x\n  labels:\n    a: b\n    c: d\ninfo:\n  readinessGates:\n    - conditionType: G\n",
    );
  });

  it("reads what an object asks to write: only the lists it gives, no conditions on a create", () => {
    expect(kptfileChanges({ spec: { lifecycle: "Draft" } })).toBeUndefined();
    expect(kptfileChanges({ spec: { readinessGates: [] }, status: {} })).toEqual({ gates: [] });
    expect(
      kptfileChanges(
        {
          spec: { readinessGates: [{ conditionType: "G" }] },
          status: { conditions: [{ type: "G", status: "True" }] },
        },
        "create",
      ),
    ).toEqual({ add: true, gates: [{ conditionType: "G" }] });
  });
});
