import { describe, expect, it } from "vitest";
import { UsageError } from "../../../src/cli/io.js";
import { intFlag, parseArgs } from "../../../src/cli/rpkg/args.js";
import { isGitSource } from "../../../src/cli/rpkg/clone.js";
import { treeFromText, treeToText } from "../../../src/kpt/tree.js";
import { discoverRevisions } from "../../../src/lifecycle/index.js";
import type { PorchError } from "../../../src/porch/errors.js";
import { findRevision } from "../../../src/porch/names.js";
import type { RepoState, Repository } from "../../../src/porch/repository.js";
import { resourceListToTree, treeToResourceList } from "../../../src/porch/resources.js";
import { sameServerRepository } from "../../../src/porch/upstream-lock.js";

describe("rpkg flags", () => {
  const spec = { repository: "value", output: "value", force: "switch" } as const;
  it("reads --f=v, --f v, -o v, -ov and switches; '-' is positional", () => {
    const p = parseArgs(["a", "--repository=o/r", "-o", "yaml", "--force", "-", "b"], spec, "usage");
    expect(p.positional).toEqual(["a", "-", "b"]);
    expect(Object.fromEntries(p.values)).toEqual({ repository: "o/r", output: "yaml" });
    expect(p.switches.has("force")).toBe(true);
    expect(Object.fromEntries(parseArgs(["-ojson", "--repository", "x/y"], spec, "u").values)).toEqual({
      output: "json",
      repository: "x/y",
    });
  });
  it("refuses unknown flags and missing values, naming the known flags", () => {
    expect(() => parseArgs(["--nope"], spec, "u")).toThrow(
      /unknown flag --nope; this command knows --repository, --output, --force/,
    );
    expect(() => parseArgs(["--repository"], spec, "u")).toThrow(UsageError);
    expect(() => parseArgs(["--force=yes"], spec, "u")).toThrow(/takes no value/);
  });
  it("reads revision numbers with or without v", () => {
    expect(intFlag(parseArgs(["--revision=v3"], { revision: "value" }, "u"), "revision", "u")).toBe(3);
    expect(() =>
      intFlag(parseArgs(["--revision=three"], { revision: "value" }, "u"), "revision", "u"),
    ).toThrow(/must be a revision number/);
  });
});

describe("package revision names", () => {
  const repo = { full: "acme/blueprints", name: "blueprints" } as Repository;
  const state = (refs: [string, string][]): RepoState => {
    const r = refs.map(([ref, sha]) => ({ ref, sha }));
    return {
      refs: r,
      pulls: [],
      revisions: discoverRevisions({ refs: r, pullRequests: [], baseBranch: "main" }),
    };
  };
  const s = state([
    ["refs/tags/net/dns/v1", "a1"],
    ["refs/heads/drafts/net/dns/edit", "d1"],
    ["refs/heads/drafts/app/v1", "d2"],
    ["refs/tags/app/v1", "a2"],
  ]);
  it("finds a revision by its Porch name, its draft branch or its tag", () => {
    expect(findRevision(repo, s, "blueprints.net.dns.edit").sha).toBe("d1");
    expect(findRevision(repo, s, "drafts/net/dns/edit").sha).toBe("d1");
    expect(findRevision(repo, s, "net/dns/v1").sha).toBe("a1");
  });
  it("reports an ambiguous name with the refs that tell them apart", () => {
    expect(() => findRevision(repo, s, "blueprints.app.v1")).toThrow(
      /names more than one revision in acme\/blueprints \(app\/v1 and drafts\/app\/v1\)/,
    );
    expect(findRevision(repo, s, "app/v1").sha).toBe("a2");
  });
  it("says how to list revisions when a name is unknown", () => {
    expect(() => findRevision(repo, s, "blueprints.nope.x")).toThrow(
      'packagerevisions.porch.kpt.dev "blueprints.nope.x" not found',
    );
    try {
      findRevision(repo, s, "blueprints.nope.x");
    } catch (e) {
      expect((e as PorchError).hint).toBe(
        "no package revision named blueprints.nope.x in acme/blueprints: names look like blueprints.<package>.<workspace>; list them with `porchlight rpkg get --repository acme/blueprints`",
      );
    }
    expect(() => findRevision(repo, s, "app/v9")).toThrow(
      /app has no published revision v9 .* \(no tag app\/v9\)/,
    );
  });
});

describe("ResourceList ↔ package files", () => {
  it("round-trips YAML files through a ResourceList and leaves other files out", () => {
    const tree = treeFromText({
      Kptfile: "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: app\n",
      "sub/two.yaml":
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n",
      "README.md": "# app\n",
    });
    const text = treeToResourceList(tree);
    expect(text).toContain("config.kubernetes.io/path: sub/two.yaml");
    expect(text).toContain('internal.config.kubernetes.io/index: "1"');
    expect(text).not.toContain("README");
    const back = resourceListToTree(text, "stdin");
    const expected = treeToText(tree);
    delete expected["README.md"];
    expect(treeToText(back)).toEqual(expected);
  });
  it("names an item without a path", () => {
    const rl =
      "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: lost\n";
    expect(() => resourceListToTree(rl, "stdin")).toThrow(
      /stdin: ConfigMap lost has no config.kubernetes.io\/path annotation/,
    );
  });
});

describe("sources and upstreams", () => {
  it.each([
    ["https://github.com/o/r.git", true],
    ["file:///tmp/x", true],
    ["./local/repo", true],
    // what git reads as an address, so that the egress policy answers it, not a revision look-up
    ["ext::sh", true],
    ["git@github.com:o/r", true],
    ["-uhello", true],
    ["blueprints.app.v1", false],
    ["app/v1", false],
    ["acme/blueprints:app/v1", false],
  ])("%s is a git source: %s", (source, git) => {
    expect(isGitSource(source)).toBe(git);
  });
  it("finds OWNER/REPO of a clone URL on the same server only", () => {
    expect(
      sameServerRepository("http://127.0.0.1:9/acme/blueprints.git", "http://127.0.0.1:9/acme/deploy.git"),
    ).toBe("acme/blueprints");
    expect(
      sameServerRepository("https://ghe.example/git/acme/bp", "https://ghe.example/git/acme/x.git"),
    ).toBe("acme/bp");
    expect(
      sameServerRepository("https://github.com/acme/bp.git", "https://ghe.example/acme/x.git"),
    ).toBeUndefined();
  });
});
