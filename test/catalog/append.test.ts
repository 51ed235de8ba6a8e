import { describe, expect, it } from "vitest";
import { parseDocument, type YAMLSeq } from "yaml";
import {
  addRevision,
  deprecate,
  EMPTY_CATALOG,
  findHead,
  parseCatalog,
  undeprecate,
} from "../../src/catalog/index.js";
import { withoutPackageDeprecation } from "../../src/catalog/known.js";
import { codeBlock } from "../util/codeblock.js";

const SHA = "0123456789abcdef0123456789abcdef01234567";
const TIME = "2026-11-28T10:00:00.000Z";

/**
 * What recording a publish printed before a catalog read before was edited as lines (known.ts): the
 * whole file parsed into a Document, the record and each channel's entry appended, the whole printed.
 * The edit's output must be these bytes, whatever the catalog holds: it is the users' file, in git.
 */
function asDocumentEdit(text: string, pkg: string, revision: string, channels: readonly string[]): string {
  const { catalog } = parseCatalog(text);
  const doc = parseDocument(text);
  const p = catalog.packages.findIndex((x) => x.name === pkg);
  (doc.getIn(["packages", p, "revisions"], true) as YAMLSeq).add(
    doc.createNode({ revision, commit: SHA, time: TIME }),
  );
  for (const name of channels) {
    const c = catalog.packages[p]?.channels.findIndex((x) => x.name === name) ?? -1;
    const head = findHead(catalog.packages[p]!.channels[c]!)!.name;
    (doc.getIn(["packages", p, "channels", c, "entries"], true) as YAMLSeq).add(
      doc.createNode({ name: revision, replaces: head }),
    );
  }
  return doc.toString({ lineWidth: 0 });
}

const publish = (text: string, pkg: string, n: number, channels: string[]) =>
  addRevision(text, { package: pkg, revision: `v${n}`, commit: SHA, time: TIME, channels }).text;

describe("recording a publish in a large catalog", () => {
  it("writes, publish after publish, the bytes the whole file's edit wrote", () => {
    let text = EMPTY_CATALOG;
    for (const pkg of ["alpha", "beta"]) text = publish(text, pkg, 1, ["stable", "edge"]);
    for (let n = 2; n <= 120; n++) {
      // the two packages in turn, one into both channels, the other into one
      const pkg = n % 2 === 0 ? "alpha" : "beta";
      const channels = pkg === "alpha" ? ["edge", "stable"] : ["edge"];
      const want = asDocumentEdit(text, pkg, `v${n}`, channels);
      text = publish(text, pkg, n, channels);
      expect(text).toBe(want);
    }
    expect(parseCatalog(text).catalog.packages.map((p) => p.revisions.length)).toEqual([61, 60]);
  });

  it("refuses what it refused before: a record the catalog cannot hold, a revision not newer than its newest", () => {
    let text = EMPTY_CATALOG;
    for (let n = 1; n <= 3; n++) text = publish(text, "alpha", n, ["stable"]);
    const add = { package: "alpha", commit: SHA, time: TIME, channels: ["stable"] };
    expect(() => addRevision(text, { ...add, revision: "v4", commit: "not a commit" })).toThrow(
      /the change would break the catalog/,
    );
    expect(() => addRevision(text, { ...add, revision: "v2" })).toThrow(/in the catalog already/);
    expect(() => addRevision(text, { ...add, revision: "v04" })).toThrow(
      /the change would break the catalog/,
    );
    expect(publish(text, "alpha", 4, ["stable"])).toBe(asDocumentEdit(text, "alpha", "v4", ["stable"]));
  });

  it.each([
    [
      "a header comment, an entry's comment, blank lines between the package's fields",
      codeBlock`
        # the catalog of acme/blueprints
        schema: porchlight.catalog/v1 # do not edit by hand
        packages:
          - name: alpha
            defaultChannel: stable

            # every revision published
            revisions:
              - revision: v1 # the first
                commit: ${SHA}
                time: ${TIME}

            channels:
              - name: stable
                entries:
                  - name: v1
      `,
    ],
    [
      "a comment closing the revisions, and one after the last entry",
      codeBlock`
        schema: porchlight.catalog/v1
        packages:
          - name: alpha
            defaultChannel: stable
            revisions:
              - revision: v1
                commit: ${SHA}
                time: ${TIME}
              # more to come
            channels:
              - name: stable
                entries:
                  - name: v1
        # the end
      `,
    ],
    [
      "a trailing comment on the last record's line, sequences at their key's column",
      codeBlock`
        schema: porchlight.catalog/v1
        packages:
        - name: alpha
          defaultChannel: stable
          revisions:
          - revision: v1
            commit: ${SHA}
            time: ${TIME} # published by hand
          channels:
          - name: stable
            entries:
            - name: v1
      `,
    ],
    [
      "flow style and quotes a person wrote",
      codeBlock`
        schema: "porchlight.catalog/v1"
        packages:
          - {name: alpha, defaultChannel: stable, revisions: [{revision: v1, commit: "${SHA}", time: "${TIME}"}], channels: [{name: stable, entries: [{name: v1}]}]}
      `,
    ],
  ])("keeps what a person wrote (%s) as the whole file's edit kept it", (_, start) => {
    let text = start;
    for (let n = 2; n <= 5; n++) {
      const want = asDocumentEdit(text, "alpha", `v${n}`, ["stable"]);
      text = publish(text, "alpha", n, ["stable"]);
      expect(text).toBe(want);
    }
  });
});

/** What taking back a package's deprecation printed through the whole file's Document (undeprecate's edit). */
function withoutDeprecationAsDocumentEdit(text: string, pkg: string): string {
  const { catalog } = parseCatalog(text);
  const doc = parseDocument(text);
  doc.deleteIn(["packages", catalog.packages.findIndex((x) => x.name === pkg), "deprecations"]);
  return doc.toString({ lineWidth: 0 });
}

describe("taking back a deleted package's mark at its next publish", () => {
  it("writes, deletion after deletion, the bytes the whole file's edit wrote", () => {
    let text = EMPTY_CATALOG;
    for (const pkg of ["alpha", "beta", "gamma"]) text = publish(text, pkg, 1, ["stable"]);
    for (let n = 2; n <= 30; n++) {
      // beta deleted (a package's deprecation) and published again, as Porch's test does its test package
      const pkg = n % 3 === 0 ? "alpha" : n % 3 === 1 ? "beta" : "gamma";
      text = deprecate(
        text,
        pkg,
        { schema: "olm.package" },
        `deleted: #${n} removed ${pkg} (merge 0123456); it gets no new revision`,
      ).text;
      text = publish(text, pkg, n, ["stable"]);
      const want = withoutDeprecationAsDocumentEdit(text, pkg);
      // cut as lines (the text is known: the publish just wrote it), not edited through the Document
      expect(withoutPackageDeprecation(text, pkg)?.text).toBe(want);
      text = undeprecate(text, pkg, { schema: "olm.package" }).text;
      expect(text).toBe(want);
      expect(parseCatalog(text).catalog.packages.find((p) => p.name === pkg)?.deprecations).toBeUndefined();
    }
    // the next publishes still insert as the whole file's edit would
    const want = asDocumentEdit(text, "beta", "v31", ["stable"]);
    expect(publish(text, "beta", 31, ["stable"])).toBe(want);
  });

  it("leaves a package's other deprecations, and what a person wrote around them, to the whole file's edit", () => {
    const start = codeBlock`
      schema: porchlight.catalog/v1
      packages:
        - name: alpha
          revisions:
            - revision: v1
              commit: ${SHA}
              time: ${TIME}
          deprecations:
            # why
            - reference:
                schema: olm.package
              message: gone
    `;
    expect(undeprecate(start, "alpha", { schema: "olm.package" }).text).toBe(
      withoutDeprecationAsDocumentEdit(start, "alpha"),
    );
    // another deprecation beside it: only the package's goes
    let two = deprecate(
      publish(EMPTY_CATALOG, "alpha", 1, ["stable"]),
      "alpha",
      { schema: "olm.package" },
      "gone",
    ).text;
    two = deprecate(two, "alpha", { schema: "olm.bundle", name: "v1" }, "old").text;
    expect(
      parseCatalog(undeprecate(two, "alpha", { schema: "olm.package" }).text).catalog.packages[0]
        ?.deprecations,
    ).toEqual([{ reference: { schema: "olm.bundle", name: "v1" }, message: "old" }]);
  });
});
