import { describe, expect, it } from "vitest";
import { defaultPackageName, formatSource, parseSource, sourceKind } from "../../src/kpt/source-ref.js";

const D = `sha256:${"ab".repeat(32)}`;

describe("package sources: oci:// and tarball URLs", () => {
  it.each([
    [
      "oci://ghcr.io/acme/pkgs/basens:v3",
      { registry: "ghcr.io", repository: "acme/pkgs/basens", directory: "/", tag: "v3" },
    ],
    ["oci://localhost:5000/basens", { registry: "localhost:5000", repository: "basens", directory: "/" }],
    [
      `oci://127.0.0.1:5000/bp//ns/basens@${D}`,
      { registry: "127.0.0.1:5000", repository: "bp", directory: "/ns/basens", digest: D },
    ],
    [
      "oci://ghcr.io/acme/bp//base:stable",
      { registry: "ghcr.io", repository: "acme/bp", directory: "/base", tag: "stable" },
    ],
  ])("reads %s", (text, want) => {
    expect(parseSource(text)).toEqual({ kind: "oci", ...want });
  });

  it.each([
    [
      "https://example.com/r/basens-1.2.tar.gz",
      { url: "https://example.com/r/basens-1.2.tar.gz", directory: "/" },
    ],
    [
      `https://github.com/acme/bp/archive/refs/tags/v3.tar.gz//bp-3/basens#sha256=${"ab".repeat(32)}`,
      { url: "https://github.com/acme/bp/archive/refs/tags/v3.tar.gz", directory: "/bp-3/basens", digest: D },
    ],
    ["http://127.0.0.1:8080/p.tgz", { url: "http://127.0.0.1:8080/p.tgz", directory: "/" }],
  ])("reads %s", (text, want) => {
    expect(parseSource(text)).toEqual({ kind: "https", ...want });
  });

  it("writes back what it reads, with :latest for an OCI source without a tag", () => {
    for (const s of [
      "oci://ghcr.io/acme/pkgs/basens:v3",
      `oci://127.0.0.1:5000/bp//ns/basens@${D}`,
      `https://example.com/r/p.tar.gz//sub#sha256=${"ab".repeat(32)}`,
    ]) {
      expect(formatSource(parseSource(s))).toBe(s);
    }
    expect(formatSource(parseSource("oci://ghcr.io/acme/basens"))).toBe("oci://ghcr.io/acme/basens:latest");
  });

  it("tells OCI and tarball sources from git repositories", () => {
    expect(sourceKind("oci://ghcr.io/a/b")).toBe("oci");
    expect(sourceKind("https://example.com/p.tar.gz")).toBe("https");
    expect(sourceKind("https://github.com/acme/blueprints.git/basens")).toBeUndefined();
    expect(sourceKind("https://github.com/acme/blueprints")).toBeUndefined();
    expect(sourceKind("/home/me/repo.git")).toBeUndefined();
  });

  it("names the package after the directory, else the repository or the file", () => {
    expect(defaultPackageName(parseSource("oci://ghcr.io/acme/bp//ns/basens:v1"))).toBe("basens");
    expect(defaultPackageName(parseSource("oci://ghcr.io/acme/web:v1"))).toBe("web");
    expect(defaultPackageName(parseSource("https://example.com/r/basens-1.2.tgz"))).toBe("basens-1.2");
  });

  it.each([
    ["oci://ghcr.io/Acme/x:v1", /the repository "Acme\/x" must be lowercase/],
    ["oci://ghcr.io/acme/x@sha256:abc", /the digest "sha256:abc" is not sha256:<64 lowercase hex digits>/],
    ["oci://ghcr.io:v1", /name a registry and a repository/],
    ["oci://ghcr.io/acme/x:-bad", /the tag "-bad" is not a valid tag/],
    ["https://example.com/p.tar.gz#md5=00", /must be #sha256=<64 lowercase hex digits>/],
    ["http://example.com/p.tar.gz", /plain http:\/\/ is spoken to loopback hosts only; use https:\/\//],
  ])("refuses %s, saying why", (text, why) => {
    expect(() => parseSource(text, "pkg get")).toThrow(why);
  });
});
