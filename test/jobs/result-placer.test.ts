import { describe, expect, it } from "vitest";
import { resultPlacer } from "../../src/jobs/kpt-renderer/locate.js";
import { treeFromText } from "../../src/kpt/tree.js";
import { codeBlock } from "../util/codeblock.js";

const place = resultPlacer(
  treeFromText({
    "deploy.yaml": codeBlock`
      apiVersion: v1
      kind: ConfigMap
      metadata:
        name: other
      ---
      apiVersion: apps/v1
      kind: Deployment
      metadata:
        name: web
      spec:
        template:
          spec:
            containers:
              - name: nginx
                image: nginx:latest
    `,
  }),
);
const web = { apiVersion: "apps/v1", kind: "Deployment", name: "web" };

describe("resultPlacer", () => {
  it.each([
    ["a field by index, at the field's line", "spec.template.spec.containers[0].image", 15],
    [
      "a field behind a [name=x] selector, at the list",
      "spec.template.spec.containers[name=nginx].image",
      14,
    ],
    ["a missing field, at the deepest part that exists", "spec.replicas", 11],
    ["a field that is not there at all, at the resource's first line", "status.phase", 6],
  ])("places %s", (_name, path, line) => {
    expect(place({ message: "m", resourceRef: web, field: { path } })).toEqual({ file: "deploy.yaml", line });
  });

  it("places a result by file and index when it names them", () => {
    expect(place({ message: "m", file: { path: "deploy.yaml", index: 0 } })).toEqual({
      file: "deploy.yaml",
      line: 1,
    });
  });
});
