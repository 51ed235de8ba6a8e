import { describe, expect, it } from "vitest";
import { LineCounter, parseDocument } from "yaml";
import {
  formatFieldPath,
  formatQuotedFieldPath,
  locate,
  type PointOptions,
  pointAt,
  positionOf,
} from "../../../src/kpt/yaml/yaml-locate.js";
import { codeBlock } from "../../util/codeblock.js";

const text = codeBlock`
  spec:
    image:
    name: web
    ports:
      - containerPort: 80
`;

/** Where a problem at `path` is shown, as "line:column", under the given options. */
function shownAt(path: (string | number)[], options: PointOptions = {}): string {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter });
  const p = positionOf(pointAt(locate(doc.contents, path), options), lineCounter);
  return `${p.line}:${p.column}`;
}

describe("yaml-locate", () => {
  it.each<[string, (string | number)[], PointOptions, string]>([
    ["an existing value, at the value", ["spec", "name"], {}, "3:9"],
    [
      "an existing entry, at its key when asked (unknown fields)",
      ["spec", "name"],
      { preferKey: true },
      "3:3",
    ],
    ["a sequence item", ["spec", "ports", 0, "containerPort"], {}, "5:22"],
    ["a missing field, at the map that lacks it", ["spec", "replicas"], {}, "2:3"],
    [
      "a missing field, at the parent's key when asked",
      ["spec", "replicas"],
      { missingAtParentKey: true },
      "1:1",
    ],
    ["an index past the end, at the sequence", ["spec", "ports", 3], {}, "5:5"],
    ["an empty value, at its key when asked", ["spec", "image"], { emptyAtKey: true }, "2:3"],
  ])("shows %s", (_name, path, options, expected) => {
    expect(shownAt(path, options)).toBe(expected);
  });

  it("says whether the whole path exists", () => {
    const doc = parseDocument(text);
    expect(locate(doc.contents, ["spec", "name"]).exact).toBe(true);
    expect(locate(doc.contents, ["spec", "nope", "deeper"]).exact).toBe(false);
  });

  it("writes field paths plainly, or with odd keys quoted", () => {
    expect(formatFieldPath(["pipeline", "mutators", 0, "image"])).toBe("pipeline.mutators[0].image");
    expect(formatQuotedFieldPath(["metadata", "annotations", "config.kubernetes.io/index"])).toBe(
      'metadata.annotations["config.kubernetes.io/index"]',
    );
  });
});
