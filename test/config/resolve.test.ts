import { describe, expect, it } from "vitest";
import {
  defaultConfig,
  parseRepoConfig,
  type RepoConfigFile,
  resolveConfig,
} from "../../src/config/index.js";
import { codeBlock } from "../util/codeblock.js";

function file(text: string): RepoConfigFile {
  const parsed = parseRepoConfig(text);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
  return parsed.config;
}

describe("resolveConfig", () => {
  it("gives the built-in defaults when neither file exists", () => {
    expect(resolveConfig(undefined, undefined)).toEqual({
      baseBranch: undefined,
      packageRoot: ".",
      deployment: false,
      requiredApprovals: 1,
      requiredApprovalsSet: false,
      mergeMethod: "merge",
      guardrails: [],
      channels: { names: ["stable", "beta"], default: "stable" },
      functions: { runtimes: undefined },
      versioning: { scheme: "integer" },
      limits: {},
      publish: {},
      registries: {},
    });
  });

  it("reads registries as the repository wrote them, the repository's file replacing the organisation's", () => {
    expect(
      resolveConfig(
        file("registries:\n  ghcr.io: org-ghcr\n  quay.io: org-quay\n"),
        file("registries:\n  ghcr.io: acme-ghcr\n"),
      ).registries,
    ).toEqual({ "ghcr.io": "acme-ghcr" });
  });

  it("reads publish.oci's repository with or without oci://, and refuses one that is not REGISTRY/PATH", () => {
    expect(
      resolveConfig(undefined, file("publish:\n  oci:\n    repository: oci://ghcr.io/acme/pkgs\n")).publish,
    ).toEqual({
      oci: { repository: "ghcr.io/acme/pkgs" },
    });
    expect(
      resolveConfig(file("publish:\n  oci:\n    repository: ghcr.io/acme/pkgs\n"), undefined).publish.oci
        ?.repository,
    ).toBe("ghcr.io/acme/pkgs");
    const bad = parseRepoConfig("publish:\n  oci:\n    repository: ghcr.io/Acme\n");
    expect(bad.ok).toBe(false);
    expect(JSON.stringify(bad)).toContain("must be REGISTRY/PATH");
  });

  it("takes the organisation defaults where the repository says nothing", () => {
    const org = file(codeBlock`
      requiredApprovals: 2
      mergeMethod: squash
      guardrails:
        - image: kubeconform:v0.1
    `);
    const repo = file("deployment: true\n");
    expect(resolveConfig(org, repo)).toMatchObject({
      requiredApprovals: 2,
      mergeMethod: "squash",
      deployment: true,
      guardrails: [{ image: "kubeconform:v0.1" }],
    });
  });

  it.each([
    {
      name: "the repository's guardrails replace the organisation's list",
      org: "guardrails:\n  - image: a:v1\n  - image: b:v1\n",
      repo: "guardrails:\n  - image: c:v1\n",
      expected: { guardrails: [{ image: "c:v1" }] },
    },
    {
      name: "an empty guardrail list turns the organisation's off",
      org: "guardrails:\n  - image: a:v1\n",
      repo: "guardrails: []\n",
      expected: { guardrails: [] },
    },
    {
      name: "channels are replaced as a whole, built-in defaults filling the gaps",
      org: "channels:\n  names: [stable, beta, edge]\n  default: edge\n",
      repo: "channels:\n  default: beta\n",
      expected: { channels: { names: ["stable", "beta"], default: "beta" } },
    },
    {
      name: "a channel list without `stable` defaults to its first channel",
      org: "",
      repo: "channels:\n  names: [prod, canary]\n",
      expected: { channels: { names: ["prod", "canary"], default: "prod" } },
    },
    {
      name: "the package root is normalised",
      org: "packageRoot: ./packages/\n",
      repo: "",
      expected: { packageRoot: "packages" },
    },
    {
      name: "a package root of ./ is the repository root",
      org: "",
      repo: "packageRoot: ./\n",
      expected: { packageRoot: "." },
    },
    {
      name: "the repository's runtimes replace the organisation's",
      org: "functions:\n  runtimes: [builtin, exec]\n",
      repo: "functions:\n  runtimes: [builtin]\n",
      expected: { functions: { runtimes: ["builtin"] } },
    },
  ])("$name", ({ org, repo, expected }) => {
    expect(resolveConfig(file(org), file(repo))).toMatchObject(expected);
  });

  it("does not share arrays with its inputs or between calls", () => {
    const repo = file("guardrails:\n  - image: a:v1\n");
    const resolved = resolveConfig(undefined, repo);
    resolved.guardrails.push({ image: "b:v1" });
    resolved.channels.names.push("edge");
    expect(repo.guardrails).toHaveLength(1);
    expect(defaultConfig().channels.names).toEqual(["stable", "beta"]);
  });
});
