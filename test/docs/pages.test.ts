import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import {
  CatalogError,
  formatCatalogProblem,
  parseCatalog,
  removeRevision,
  upgradePath,
} from "../../src/catalog/index.js";
import { formatProblem, parseRepoConfig } from "../../src/config/index.js";
import { parseKptfile } from "../../src/kpt/kptfile.js";
import { OperatorCredentials } from "../../src/sources/oci/operator-credentials.js";
import { formatProblem as formatVariantProblem, parseVariantFile } from "../../src/variants/index.js";
import type { RolloutMember } from "../../src/variants/rollout.js";
import { renderRollouts } from "../../src/variants/rollout-dashboard.js";
import { type DocBlock, docBlock, PROJECT } from "../util/doc-blocks.js";

/**
 * The docs' examples that are files or texts: each is read by the code that reads such a file, or is
 * the text porchlight prints for the input the page describes. The commands are run against the forge
 * in test/docs/*.e2e tests and test/e2e (test/docs/coverage.test.ts checks that every block is taken).
 */

/** A block's text with its `…` elisions (`1f3e…`, `sha256:4f1c…e9`) made concrete, as a user fills them. */
const filled = (block: DocBlock) =>
  block.text
    .replace(/sha256:[0-9a-f]*…[0-9a-f]*/g, `sha256:${"4f1c".padEnd(64, "0")}`)
    .replace(/\b([0-9a-f]{4})…/g, (_, head: string) => head + "0".repeat(36));

function expectConfigOk(text: string): void {
  const parsed = parseRepoConfig(text);
  expect(parsed.ok ? [] : parsed.problems.map(formatProblem)).toEqual([]);
}

function expectVariantsOk(file: string, text: string): number {
  const parsed = parseVariantFile(file, text, { managementRepo: "acme/blueprints" });
  expect(parsed.problems.map(formatVariantProblem)).toEqual([]);
  return parsed.variants.length + parsed.sets.length;
}

describe("docs/config.md", () => {
  it("the example configuration is read without a problem", () => {
    expectConfigOk(docBlock("docs/config.md", "# .github/porchlight.yml").text);
  });

  it("the editor line names the schema the project publishes", () => {
    const line = docBlock(
      "docs/config.md",
      "# yaml-language-server: $schema=https://porchlight.dev/schema/porchlight.schema.json",
    );
    expectConfigOk(line.text);
    const schema = JSON.parse(readFileSync(join(PROJECT, "schema/porchlight.schema.json"), "utf8")) as {
      $id?: string;
    };
    expect(line.text).toContain(`$schema=${schema.$id}`);
  });

  it("the problems shown are what porchlight says for such a file, at those lines and columns", () => {
    const shown = docBlock(
      "docs/config.md",
      '.github/porchlight.yml:5:14 (main): mergeMethod: must be one of merge, squash, rebase, not "fast-forward"',
    );
    const file = [
      "baseBranch: main",
      "packageRoot: packages",
      "deployment: false",
      "requiredApprovals: 2",
      "mergeMethod: fast-forward",
      "guardrails:",
      "  - image: ghcr.io/kptdev/krm-functions-catalog/kubeconform:v0.1",
      "  - packges: [apps/**]",
      "    image: ghcr.io/kptdev/krm-functions-catalog/starlark:v0.5",
      "",
    ].join("\n");
    const parsed = parseRepoConfig(file, { ref: "main" });
    expect(parsed.ok ? [] : parsed.problems.map(formatProblem)).toEqual(shown.text.trimEnd().split("\n"));
  });
});

describe("docs/variants.md", () => {
  it("the PackageVariant example is read without a problem", () => {
    const block = docBlock(
      "docs/variants.md",
      "# .porchlight/variants/basens.yaml — several documents per file are fine",
    );
    expect(expectVariantsOk(".porchlight/variants/basens.yaml", block.text)).toBe(1);
  });

  it("the PackageVariantSet example is read without a problem", () => {
    const block = docBlock("docs/variants.md", "apiVersion: config.porch.kpt.dev/v1alpha2");
    expect(expectVariantsOk(".porchlight/variants/fleet.yaml", block.text)).toBe(1);
  });

  it("a misspelt field is reported as the page shows", () => {
    const shown = docBlock(
      "docs/variants.md",
      `.porchlight/variants/basens.yaml:7:3: spec.adoptonPolicy: unknown field "adoptonPolicy" (remove it or fix its spelling; the fields are Porch's)`,
    );
    const file = [
      "apiVersion: config.porch.kpt.dev/v1alpha1",
      "kind: PackageVariant",
      "metadata:",
      "  name: cluster-01-basens",
      "spec:",
      "  upstream: {package: basens, revision: v3}",
      "  adoptonPolicy: adoptNone",
      "  downstream: {repo: cluster-01, package: basens}",
      "",
    ].join("\n");
    const parsed = parseVariantFile(".porchlight/variants/basens.yaml", file, {
      managementRepo: "blueprints",
    });
    expect(parsed.problems.map(formatVariantProblem)).toEqual([shown.text.trimEnd()]);
  });
});

describe("docs/fanout.md and docs/sources.md: variant files and configurations", () => {
  it.each([
    [
      "docs/fanout.md",
      docBlock(
        "docs/fanout.md",
        "# acme/blueprints: .porchlight/variants/hello-dev.yaml (as seeded; shortened)",
      ),
      1,
    ],
    [
      "docs/fanout.md",
      docBlock("docs/fanout.md", "# acme/blueprints: .porchlight/variants/fleet.yaml (one of nine)"),
      1,
    ],
    ["docs/sources.md", docBlock("docs/sources.md", "# acme/blueprints: .porchlight/variants/web.yaml"), 2],
  ])("%s's variant file is read without a problem", (_page, block, count) => {
    expect(expectVariantsOk(".porchlight/variants/x.yaml", block.text)).toBe(count);
  });

  it.each([
    ["docs/fanout.md", docBlock("docs/fanout.md", "# acme/blueprints: .github/porchlight.yml")],
    ["docs/sources.md", docBlock("docs/sources.md", "# .github/porchlight.yml")],
    ["docs/sources.md", docBlock("docs/sources.md", "registries:")],
  ])("%s's configuration is read without a problem", (_page, block) => {
    expectConfigOk(block.text);
  });

  it("the upstream annotations of docs/sources.md's Kptfile are what a Kptfile may hold", () => {
    const block = docBlock("docs/sources.md", "apiVersion: kpt.dev/v1");
    const kptfile = parseKptfile(filled(block), "Kptfile").kptfile;
    expect(kptfile.upstream?.updateStrategy).toBe("resource-merge");
    expect(Object.keys(kptfile.metadata?.annotations ?? {})).toEqual([
      "porchlight.dev/upstream",
      "porchlight.dev/upstream-lock",
    ]);
  });

  it("the operator's registry credentials file of docs/sources.md is read, and gives each repository what it says", () => {
    const block = docBlock(
      "docs/sources.md",
      "# /etc/porchlight/registries.yaml  (PORCHLIGHT_REGISTRY_CREDENTIALS=/etc/porchlight/registries.yaml)",
    );
    const creds = OperatorCredentials.parse(block.text, "/etc/porchlight/registries.yaml");
    expect(creds.entries.map((e) => [e.name, e.login.username])).toEqual([
      ["acme-ghcr", "acme-bot"],
      ["infra-ghcr", "infra-bot"],
    ]);
    // The configuration's `registries: {ghcr.io: infra-ghcr}` (the next block) is allowed to acme/blueprints.
    expect(creds.refusal("acme/blueprints", "ghcr.io", "infra-ghcr")).toBeUndefined();
    expect(creds.refusal("acme/web", "ghcr.io", "infra-ghcr")).toMatch(/does not allow acme\/web/);
  });

  it("docs/sources.md's Flux OCIRepository points at the repository and tag the mirror publishes", () => {
    const block = docBlock("docs/sources.md", "# Flux: an OCIRepository at a published revision");
    const mirror = docBlock("docs/sources.md", "# .github/porchlight.yml");
    const repository = (parse(mirror.text) as { publish: { oci: { repository: string } } }).publish.oci
      .repository;
    const flux = parse(block.text) as { kind: string; spec: { url: string; ref: { tag: string } } };
    expect(flux.kind).toBe("OCIRepository");
    // docs/sources.md: each published revision goes to <repository>/<package>:v<N>.
    expect(flux.spec.url).toBe(`oci://${repository}/basens`);
    expect(flux.spec.ref.tag).toMatch(/^v\d+$/);
  });
});

describe("docs/catalog.md", () => {
  const example = () => filled(docBlock("docs/catalog.md", "schema: porchlight.catalog/v1"));

  it("the example catalog is valid, and with deprecations and removed added as shown", () => {
    const catalog = parseCatalog(example()).catalog;
    expect(catalog.packages[0]?.channels.map((c) => c.name)).toEqual(["stable", "beta"]);
    const more = docBlock("docs/catalog.md", "deprecations:").text;
    // `removed: [v1]` takes v1 out: the example's entries no longer name it, as the rules require.
    const withMore = `${example()
      .replace(/\n.*revision: v1,.*\n/, "\n")
      .replace(/\n\s+- name: v1\n/g, "\n")
      .replace(/\n\s+replaces: v1 .*\n/, "\n")
      .replace(", replaces: v1}", "}")}${more}`;
    const pkg = parseCatalog(withMore).catalog.packages[0];
    expect(pkg?.removed).toEqual(["v1"]);
    expect(pkg?.deprecations?.[0]?.message).toBe("v2 leaks its token; use v3");
  });

  it("a channel with two heads is reported as the page shows", () => {
    const shown = docBlock(
      "docs/catalog.md",
      "catalog.yaml:12:5: packages[0].channels[0].entries: channel stable has several heads (v1, v2); each needs to be replaced by a newer entry but one",
    );
    // The example with stable's v3 entry made a v2 entry that replaces nothing.
    const twoHeads = example().replace(/ {4}- name: v3\n.*\n.*\n/, "    - name: v2\n");
    let problems: string[] = [];
    try {
      parseCatalog(twoHeads);
    } catch (e) {
      if (!(e instanceof CatalogError)) throw e;
      problems = e.problems.map(formatCatalogProblem);
    }
    expect(problems).toEqual([shown.text.trimEnd()]);
  });

  it("the skipRange example: downstreams on v1, v2 or v3 upgrade straight to v5, one on v4 along replaces", () => {
    const entry = docBlock("docs/catalog.md", "- name: v5").text;
    const revisions = [1, 2, 3, 4, 5]
      .map((n) => `  - {revision: v${n}, commit: ${"a".repeat(6)}${n}, time: "2024-05-0${n}T10:00:00Z"}\n`)
      .join("");
    const text = `schema: porchlight.catalog/v1\npackages:\n- name: basens\n  defaultChannel: stable\n  revisions:\n${revisions}  channels:\n  - name: stable\n    entries:\n    - name: v4\n${entry}`;
    const { catalog } = parseCatalog(text);
    for (const from of ["v1", "v2", "v3"])
      expect(upgradePath(catalog, "basens", from, "stable")).toEqual({ ok: true, path: [from, "v5"] });
    expect(upgradePath(catalog, "basens", "v4", "stable")).toEqual({ ok: true, path: ["v4", "v5"] });
  });

  it("an invalid skipRange is reported as the page shows", () => {
    const shown = docBlock(
      "docs/catalog.md",
      'catalog.yaml:16:18: packages[0].channels[0].entries[1].skipRange: invalid skipRange ">v0.1.0": ">v" in ">v0.1.0" is not a comparison (<, <=, >, >=, =, == or !=)',
    );
    const text = example().replace("      skips: [v2]", '      skips: [v2]\n      skipRange: ">v0.1.0"');
    let problems: string[] = [];
    try {
      parseCatalog(text);
    } catch (e) {
      if (!(e instanceof CatalogError)) throw e;
      problems = e.problems.map(formatCatalogProblem);
    }
    expect(problems).toEqual([shown.text.trimEnd()]);
  });

  it("removing a channel's head is refused with the answer the page shows", () => {
    const shown = docBlock(
      "docs/catalog.md",
      "Not changed: basens v3 is the head of channel stable: removing it would break the upgrade path v1 -> v2 -> v3",
    );
    // A catalog whose stable channel is v1 -> v2 -> v3 (the example's beta channel, made stable).
    const chain = example()
      .replace(/ {2}- name: stable\n[\s\S]*?(?= {2}- name: beta)/, "")
      .replace("name: beta", "name: stable");
    let message = "";
    try {
      removeRevision(chain, "basens", "v3");
    } catch (e) {
      if (!(e instanceof CatalogError)) throw e;
      message = `Not changed: ${e.message}`;
    }
    expect(message).toBe(shown.text.trimEnd().split("\n").join(" "));
  });
});

describe("docs/rpkg.md", () => {
  it("the PackageRevision shown has the fields and values porchlight writes", () => {
    const block = docBlock("docs/rpkg.md", "apiVersion: porch.kpt.dev/v1alpha1");
    const pr = parse(filled(block)) as {
      kind: string;
      metadata: { name: string; namespace: string };
      spec: { packageName: string; workspaceName: string; repository: string; revision: number };
    };
    expect(pr.kind).toBe("PackageRevision");
    // Porch's name: repository.package.workspace, kept for life.
    expect(pr.metadata.name).toBe(`${pr.spec.repository}.${pr.spec.packageName}.${pr.spec.workspaceName}`);
  });
});

describe("docs/fanout.md's rollout dashboard", () => {
  it("is what the dashboard writes for a rollout stopped at a failed step (the ids left out)", () => {
    const shown = docBlock("docs/fanout.md", "### Rollout of blueprints/basens");
    const member = (repo: string, state: RolloutMember["state"]): RolloutMember => ({
      variant: repo,
      downstream: { repo, package: "basens" },
      state,
    });
    const why = "stg-2/basens: checks failed on the default branch: ci/e2e";
    const lines = renderRollouts(
      [
        {
          upstream: { repo: "blueprints", package: "basens" },
          steps: [
            { name: "dev", state: "done", why: "", automerge: true, members: [member("dev-1", "deployed")] },
            {
              name: "staging",
              state: "failed",
              why,
              automerge: false,
              members: [{ ...member("stg-2", "failed"), why: "checks failed on the default branch: ci/e2e" }],
            },
            {
              name: "prod",
              state: "waiting",
              why: "",
              automerge: false,
              members: [member("prod-1", "waiting")],
            },
          ],
          failed: { step: "staging", why },
          complete: false,
        },
      ],
      (repo, n) => `${repo}#${n}`,
    );
    const ids = (text: string) => text.replace(/\b([sm])(?:[0-9a-f]{8}|…)/g, "$1…");
    expect(ids(lines.join("\n")).trimEnd()).toBe(ids(shown.text).trimEnd());
  });
});

describe("docs/development.md's layout", () => {
  it("names every directory of src/, and only those", () => {
    const block = docBlock("docs/development.md", "src/");
    const named = [...block.text.matchAll(/^ {2}([\w-]+)\/ /gm)].map((m) => m[1]);
    const dirs = readdirSync(join(PROJECT, "src"), { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name);
    expect([...named].sort()).toEqual([...dirs].sort());
    // a file the block names is one of src/ or, on test/'s lines, of test/
    const files = ["src", "test"].flatMap((d) =>
      readdirSync(join(PROJECT, d), { recursive: true }).map((p) => `/${String(p)}`),
    );
    for (const file of [...block.text.matchAll(/\b([\w-]+\.ts)\b/g)].map((m) => m[1]))
      expect(
        files.some((p) => p.endsWith(`/${file}`)),
        file,
      ).toBe(true);
    expect(existsSync(join(PROJECT, "test/e2e"))).toBe(true);
  });

  it("names every workspace package of packages/", () => {
    const named = [...docBlock("docs/development.md", "src/").text.matchAll(/^packages\/([\w-]+)\/$/gm)].map(
      (m) => m[1],
    );
    const dirs = readdirSync(join(PROJECT, "packages"), { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name);
    expect([...named].sort()).toEqual([...dirs].sort());
  });
});
