import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  formatDraftBranch,
  formatRevisionTag,
  formatVariantBranch,
  parseDraftBranch,
  parseRevisionTag,
  parseVariantBranch,
  refNameProblem,
} from "../../src/lifecycle/index.js";

const segment = fc
  .stringMatching(/^[A-Za-z0-9_][A-Za-z0-9_.-]{0,11}$/)
  .filter((s) => !/^v\d+$/.test(s) && !s.endsWith(".") && !s.endsWith(".lock") && !s.includes(".."));
const packagePath = fc.array(segment, { minLength: 1, maxLength: 4 }).map((parts) => parts.join("/"));
const dnsLabel = fc.stringMatching(/^[a-z0-9]([-a-z0-9]{0,20}[a-z0-9])?$/);

describe("names round-trip for any valid package path", () => {
  it("draft branches", () => {
    fc.assert(
      fc.property(packagePath, dnsLabel, (pkg, workspace) => {
        const branch = formatDraftBranch({ package: pkg, workspace });
        expect(refNameProblem(branch)).toBeUndefined();
        expect(parseDraftBranch(branch)).toEqual({ ok: true, value: { package: pkg, workspace } });
      }),
    );
  });

  it("revision tags", () => {
    fc.assert(
      fc.property(packagePath, fc.integer({ min: 1, max: 1_000_000 }), (pkg, revision) => {
        const tag = formatRevisionTag({ package: pkg, revision });
        expect(refNameProblem(tag)).toBeUndefined();
        expect(parseRevisionTag(tag)).toEqual({ ok: true, value: { package: pkg, revision } });
      }),
    );
  });

  it("variant branches", () => {
    fc.assert(
      fc.property(packagePath, fc.array(dnsLabel, { minLength: 1, maxLength: 3 }), (pkg, labels) => {
        const variant = labels.join(".");
        const branch = formatVariantBranch({ package: pkg, variant });
        expect(refNameProblem(branch)).toBeUndefined();
        expect(parseVariantBranch(branch)).toEqual({ ok: true, value: { package: pkg, variant } });
      }),
    );
  });

  it("no parse accepts a name git would refuse", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), (text) => {
        for (const name of [`drafts/${text}`, `${text}/v1`, `porchlight/variant/${text}`]) {
          const ok = parseDraftBranch(name).ok || parseRevisionTag(name).ok || parseVariantBranch(name).ok;
          if (ok) expect(refNameProblem(name)).toBeUndefined();
        }
      }),
    );
  });
});
