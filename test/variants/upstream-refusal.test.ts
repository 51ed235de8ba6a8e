import { describe, expect, it } from "vitest";
import { renderDashboard } from "../../src/variants/dashboard.js";
import {
  formatRefusalMarker,
  parseRefusals,
  refusalHint,
  refusalMessage,
  type UpstreamRefusal,
} from "../../src/variants/upstream-refusal.js";

const unreadable: UpstreamRefusal = {
  kind: "unreadable",
  upstream: "acme/hidden",
  management: "acme/blueprints",
  writer: "alice",
};
const unknown: UpstreamRefusal = {
  kind: "writers-unknown",
  upstream: "acme/hidden",
  management: "acme/blueprints",
  error: "GitHub answered 502 <Bad Gateway> -->",
};

describe("a refused upstream on the dashboard, as Porch's API reads it back", () => {
  it.each([
    ["a writer who cannot read it", unreadable],
    ["writers that cannot be listed (an error with `>` and `-->` in it)", unknown],
  ])("round-trips %s through its hidden marker", (_, refusal) => {
    const body = `<!-- porchlight:dashboard -->\n${formatRefusalMarker("steal", refusal)}\n| row |\n`;
    expect(body.split("-->").length).toBe(3);
    expect(parseRefusals(body)).toEqual(new Map([["steal", refusal]]));
  });

  it("reads nothing from a body without markers, or with a marker it cannot parse", () => {
    expect(parseRefusals(undefined)).toEqual(new Map());
    expect(parseRefusals("<!-- porchlight:refused {not json} -->")).toEqual(new Map());
    expect(parseRefusals('<!-- porchlight:refused {"variant":"x","kind":"other"} -->')).toEqual(new Map());
  });

  it("says what was refused, why, and what to do", () => {
    expect(refusalMessage(unreadable)).toBe(
      "acme/hidden is private and alice, who may push the variant files of acme/blueprints, cannot read it: a variant file makes porchlight read another repository only when everyone who may write the variant files may read it (or it is public)",
    );
    expect(refusalHint(unreadable)).toBe(
      "give alice (and every other writer of acme/blueprints) read access to acme/hidden, or make acme/hidden public, or keep the variant in acme/hidden's own variant files (the default management repository, whose writers read it)",
    );
    expect(refusalMessage(unknown)).toMatch(
      /^who may push to acme\/blueprints cannot be read \(GitHub answered 502/,
    );
  });

  it("is written by renderDashboard for each problem that carries one, and only those", () => {
    const body = renderDashboard({
      variants: [],
      plan: { actions: [] },
      problems: [
        {
          file: ".porchlight/variants/steal.yaml",
          line: 6,
          column: 13,
          field: "spec.upstream.repo",
          variant: "steal",
          message: refusalMessage(unreadable),
          refusal: unreadable,
        },
        { file: ".porchlight/variants/x.yaml", line: 1, column: 1, field: "", variant: "x", message: "bad" },
      ],
    });
    expect([...parseRefusals(body).keys()]).toEqual(["steal"]);
    expect(body).toContain("### Problems in variant files (2)");
  });
});
