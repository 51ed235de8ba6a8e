import { describe, expect, it } from "vitest";
import {
  formatDraftBranch,
  formatRevisionTag,
  formatVariantBranch,
  parseDraftBranch,
  parsePackageBranch,
  parseRevisionTag,
  parseVariantBranch,
} from "../../src/lifecycle/index.js";

describe("draft branches drafts/<package>/<workspace>", () => {
  it.each([
    { branch: "drafts/app/fix-1", package: "app", workspace: "fix-1" },
    { branch: "drafts/net/dns/coredns/v2-upgrade", package: "net/dns/coredns", workspace: "v2-upgrade" },
    { branch: "drafts/my_pkg.d/ws", package: "my_pkg.d", workspace: "ws" },
    { branch: "drafts/Apps/Web/a", package: "Apps/Web", workspace: "a" },
  ])("$branch round-trips", ({ branch, package: pkg, workspace }) => {
    expect(parseDraftBranch(branch)).toEqual({ ok: true, value: { package: pkg, workspace } });
    expect(parseDraftBranch(`refs/heads/${branch}`)).toEqual({
      ok: true,
      value: { package: pkg, workspace },
    });
    expect(formatDraftBranch({ package: pkg, workspace })).toBe(branch);
  });

  it.each([
    { branch: "main", reason: 'does not start with "drafts/"' },
    { branch: "drafts/app", reason: "needs a package path and a workspace" },
    { branch: "drafts//ws", reason: "needs a package path and a workspace" },
    { branch: "drafts/app/Fix", reason: "lowercase letters, digits and '-'" },
    { branch: "drafts/app/-fix", reason: "start and end with a letter or digit" },
    { branch: "drafts/app/fix_1", reason: "lowercase letters" },
    { branch: `drafts/app/${"w".repeat(64)}`, reason: "longer than 63 characters" },
    { branch: "drafts/app/", reason: "the workspace name is empty" },
    { branch: "drafts/../etc/ws", reason: "cannot contain `..`" },
    { branch: "drafts/a..b/ws", reason: "cannot contain `..`" },
    { branch: "drafts/./app/ws", reason: "cannot contain `.`" },
    { branch: "drafts/app/v3/ws", reason: "named like a revision" },
    { branch: "drafts/my app/ws", reason: "cannot contain a space" },
    { branch: "drafts/app.lock/ws", reason: "ending with `.lock`" },
    { branch: "drafts/.hidden/ws", reason: "starting with `.`" },
    { branch: "drafts/a:b/ws", reason: "cannot contain `:`" },
    { branch: "drafts/a//b/ws", reason: "cannot contain `//`" },
  ])("refuses $branch: $reason", ({ branch, reason }) => {
    const result = parseDraftBranch(branch);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toContain(reason);
  });

  it("refuses to format a name git or Porch would reject", () => {
    expect(() => formatDraftBranch({ package: "app", workspace: "Bad Name" })).toThrow(
      /cannot name a draft branch/,
    );
    expect(() => formatDraftBranch({ package: "../x", workspace: "ws" })).toThrow(/cannot contain `..`/);
  });
});

describe("revision tags <package>/v<N>", () => {
  it.each([
    { tag: "app/v1", package: "app", revision: 1 },
    { tag: "net/dns/coredns/v12", package: "net/dns/coredns", revision: 12 },
    { tag: "v1-app/v3", package: "v1-app", revision: 3 },
  ])("$tag round-trips", ({ tag, package: pkg, revision }) => {
    expect(parseRevisionTag(tag)).toEqual({ ok: true, value: { package: pkg, revision } });
    expect(parseRevisionTag(`refs/tags/${tag}`)).toEqual({ ok: true, value: { package: pkg, revision } });
    expect(formatRevisionTag({ package: pkg, revision })).toBe(tag);
  });

  it.each([
    { tag: "v1", reason: "needs a package path and a revision" },
    { tag: "app/1", reason: "does not end in a revision" },
    { tag: "app/v0", reason: "does not end in a revision" },
    { tag: "app/v01", reason: "does not end in a revision" },
    { tag: "app/v1.2.0", reason: "does not end in a revision" },
    { tag: "app/latest", reason: "does not end in a revision" },
    { tag: "app/v2/v1", reason: "named like a revision" },
    { tag: "a..b/v1", reason: "cannot contain `..`" },
  ])("refuses $tag: $reason", ({ tag, reason }) => {
    const result = parseRevisionTag(tag);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toContain(reason);
  });

  it("refuses to format revision 0 or a fraction", () => {
    expect(() => formatRevisionTag({ package: "app", revision: 0 })).toThrow(/not a positive integer/);
    expect(() => formatRevisionTag({ package: "app", revision: 1.5 })).toThrow(/not a positive integer/);
  });
});

describe("fan-out branches porchlight/variant/<downstream-package>/<variant>", () => {
  it.each([
    { branch: "porchlight/variant/app/app-prod", package: "app", variant: "app-prod" },
    {
      branch: "porchlight/variant/net/dns/coredns/edge.eu-west-1",
      package: "net/dns/coredns",
      variant: "edge.eu-west-1",
    },
  ])("$branch round-trips", ({ branch, package: pkg, variant }) => {
    expect(parseVariantBranch(branch)).toEqual({ ok: true, value: { package: pkg, variant } });
    expect(formatVariantBranch({ package: pkg, variant })).toBe(branch);
  });

  it.each([
    { branch: "porchlight/variants/app/x", reason: 'does not start with "porchlight/variant/"' },
    { branch: "porchlight/variant/app", reason: "needs a package path and a variant" },
    { branch: "porchlight/variant/app/Prod", reason: "Kubernetes object name" },
    { branch: "porchlight/variant/app/prod.lock", reason: "ending with `.lock`" },
    { branch: "porchlight/variant/../app/prod", reason: "cannot contain `..`" },
  ])("refuses $branch: $reason", ({ branch, reason }) => {
    const result = parseVariantBranch(branch);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toContain(reason);
  });
});

describe("package branches: a draft, or the draft a PackageVariant makes of its downstream package", () => {
  it.each([
    { branch: "drafts/app/fix-1", value: { package: "app", workspace: "fix-1" } },
    {
      branch: "refs/heads/porchlight/variant/net/dns/edge.eu",
      value: { package: "net/dns", workspace: "edge.eu", variant: "edge.eu" },
    },
  ])("$branch is a draft of $value.package", ({ branch, value }) => {
    expect(parsePackageBranch(branch)).toEqual({ ok: true, value });
  });

  it.each([
    { branch: "feature/x", reason: 'does not start with "drafts/"' },
    { branch: "porchlight/variant/app/Prod", reason: "Kubernetes object name" },
    { branch: "porchlight/catalog", reason: 'does not start with "drafts/"' },
  ])("refuses $branch, saying why in the scheme it tried: $reason", ({ branch, reason }) => {
    const result = parsePackageBranch(branch);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toContain(reason);
  });
});
