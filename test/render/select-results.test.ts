import { describe, expect, it } from "vitest";
import { parseResource } from "../../src/kpt/resource.js";
import { formatResultsFile, resultLine } from "../../src/render/results.js";
import { isSelected } from "../../src/render/select.js";

const cm = parseResource(
  "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\n  namespace: prod\n  labels:\n    app: web\n    tier: front\n  annotations:\n    owner: me\n",
);

describe("isSelected (kpt's selectors and exclude)", () => {
  it.each([
    [[], [], true],
    [[{ kind: "ConfigMap" }], [], true],
    [[{ kind: "Service" }], [], false],
    [[{ kind: "Service" }, { name: "web" }], [], true],
    [[{ kind: "ConfigMap", name: "other" }], [], false],
    [[{ apiVersion: "v1", namespace: "prod" }], [], true],
    [[{ labels: { app: "web" } }], [], true],
    [[{ labels: { app: "web", tier: "back" } }], [], false],
    [[{ annotations: { owner: "me" } }], [], true],
    [[], [{ name: "web" }], false],
    [[{ kind: "ConfigMap" }], [{ labels: { tier: "front" } }], false],
    [[], [{ kind: "Service" }], true],
  ])("selectors %j exclude %j → %s", (selectors, exclude, expected) => {
    expect(isSelected(cm, selectors, exclude)).toBe(expected);
  });
});

describe("results", () => {
  it("prints a result as kpt does", () => {
    expect(resultLine({ message: "fyi" })).toBe("[info]: fyi");
    expect(
      resultLine({
        message: "bad",
        severity: "error",
        resourceRef: { apiVersion: "v1", kind: "ConfigMap", namespace: "ns", name: "cm" },
        field: { path: "data.x" },
      }),
    ).toBe("[error] v1/ConfigMap/ns/cm data.x: bad");
  });

  it("writes results.yaml as kpt's FunctionResultList", () => {
    const text = formatResultsFile([
      {
        image: "gcr.io/kpt-fn/set-labels:v0.2.0",
        exitCode: 0,
        results: [{ message: "set 2 labels", severity: "info" }],
      },
      { exec: "./fn.sh", exitCode: 1, stderr: "boom\nagain\n", results: [] },
    ]);
    expect(text).toBe(
      [
        "apiVersion: kpt.dev/v1",
        "kind: FunctionResultList",
        "metadata:",
        "  name: fnresults",
        "exitCode: 1",
        "items:",
        "  - image: gcr.io/kpt-fn/set-labels:v0.2.0",
        "    exitCode: 0",
        "    results:",
        "      - message: set 2 labels",
        "        severity: info",
        "  - exec: ./fn.sh",
        "    stderr: |",
        "      boom",
        "      again",
        "    exitCode: 1",
        "",
      ].join("\n"),
    );
  });
});
