import { describe, expect, it } from "vitest";
import { checkProposedConfig } from "../../src/jobs/check-config/index.js";
import { repoName } from "../../src/jobs/context.js";
import { noCredentials } from "../../src/sources/oci/credentials.js";
import { OperatorCredentials } from "../../src/sources/oci/operator-credentials.js";
import { fakeRepoWith } from "./fake-repo.js";
import { proposalOf } from "./helpers.js";

const BRANCH = "tune-config";

function proposing(files: Record<string, string | null>) {
  const repo = fakeRepoWith({ "README.md": "hi\n", ".github/porchlight.yml": "mergeMethod: merge\n" });
  return proposalOf(repo, BRANCH, files);
}

describe("the configuration a pull request proposes", () => {
  it("fails porchlight/config on the head with an annotation at each problem's line", async () => {
    const { repo, pr, ctx } = proposing({
      ".github/porchlight.yml":
        "mergeMethod: fast-forward\nguardrails:\n  - image: kubeconform:v0.1\n    packges: [apps]\n",
    });
    const outcome = await checkProposedConfig(ctx, { pull: pr.number, defaultBranch: "main" });
    expect(outcome).toMatchObject({ kind: "checked", ok: false, problems: 2 });
    const [run] = repo.runsOn(pr.headSha, "porchlight/config");
    expect(run?.conclusion).toBe("failure");
    expect(run?.annotations.map((a) => [a.path, a.start_line, a.annotation_level])).toEqual([
      [".github/porchlight.yml", 1, "failure"],
      [".github/porchlight.yml", 4, "failure"],
    ]);
    expect(run?.summary).toContain(
      '.github/porchlight.yml:1:14 (tune-config): mergeMethod: must be one of merge, squash, rebase, not "fast-forward"',
    );
    expect(run?.summary).toContain("unknown field `packges`; did you mean `packages`?");
    expect(run?.summary).toContain("porchlight keeps running with the configuration of `main`");
  });

  it("passes a valid one, and one that only adds probot's `_extends`", async () => {
    for (const text of ["mergeMethod: squash\n", "_extends: .github\nrequiredApprovals: 2\n"]) {
      const { repo, pr, ctx } = proposing({ ".github/porchlight.yml": text });
      await checkProposedConfig(ctx, { pull: pr.number, defaultBranch: "main" });
      expect(repo.runsOn(pr.headSha, "porchlight/config").map((r) => [r.conclusion, r.title])).toEqual([
        ["success", ".github/porchlight.yml is valid"],
      ]);
    }
  });

  it("fails an `_extends` that names no repository's file, at its line", async () => {
    const { repo, pr, ctx } = proposing({
      ".github/porchlight.yml": "requiredApprovals: 2\n_extends: {repo: x}\n",
    });
    await checkProposedConfig(ctx, { pull: pr.number, defaultBranch: "main" });
    const [run] = repo.runsOn(pr.headSha, "porchlight/config");
    expect(run?.conclusion).toBe("failure");
    expect(run?.summary).toContain(
      ".github/porchlight.yml:2:11 (tune-config): _extends: must name a repository's file: `repo`, `owner/repo` or `owner/repo:path.yml`, not a map",
    );
  });

  it("passes a removal: the defaults apply once it merges", async () => {
    const { repo, pr, ctx } = proposing({ ".github/porchlight.yml": null });
    await checkProposedConfig(ctx, { pull: pr.number, defaultBranch: "main" });
    expect(repo.runsOn(pr.headSha, "porchlight/config")[0]?.conclusion).toBe("success");
  });

  it("fails a registry credential the operator does not allow this repository, naming the field at its line", async () => {
    const operator = OperatorCredentials.parse(
      "credentials:\n  acme-ghcr: {registry: ghcr.io, auth: YTpi, repositories: [acme/*]}\n  other: {registry: ghcr.io, auth: YTpi, repositories: [someone/*]}\n",
      "registries.yaml",
    );
    const text = "mergeMethod: merge\nregistries:\n  ghcr.io: other\n";
    const { repo, pr, ctx } = proposing({ ".github/porchlight.yml": text });
    ctx.mirror = { credentials: noCredentials, serverUrl: "https://github.com", operator };
    await checkProposedConfig(ctx, { pull: pr.number, defaultBranch: "main" });
    const [run] = repo.runsOn(pr.headSha, "porchlight/config");
    expect(run?.conclusion).toBe("failure");
    expect(run?.annotations.map((a) => [a.path, a.start_line])).toEqual([[".github/porchlight.yml", 3]]);
    expect(run?.summary).toContain(
      `.github/porchlight.yml:3:12 (tune-config): registries.ghcr.io: the app's operator does not allow ${repoName(ctx)} to use the credential "other" (it is for someone/*)`,
    );
    // the one it is allowed passes
    const ok = proposing({ ".github/porchlight.yml": "registries:\n  ghcr.io: acme-ghcr\n" });
    ok.ctx.mirror = ctx.mirror;
    await checkProposedConfig(ok.ctx, { pull: ok.pr.number, defaultBranch: "main" });
    expect(ok.repo.runsOn(ok.pr.headSha, "porchlight/config")[0]?.conclusion).toBe("success");
  });

  it("fails any registry credential where the operator defines none, rather than ignoring it", async () => {
    const { repo, pr, ctx } = proposing({ ".github/porchlight.yml": "registries:\n  ghcr.io: acme-ghcr\n" });
    await checkProposedConfig(ctx, { pull: pr.number, defaultBranch: "main" });
    const [run] = repo.runsOn(pr.headSha, "porchlight/config");
    expect(run?.conclusion).toBe("failure");
    expect(run?.summary).toContain(
      "registries.ghcr.io: the app's operator defines no named registry credentials (PORCHLIGHT_REGISTRY_CREDENTIALS)",
    );
  });

  it("writes nothing for a pull request that leaves the file alone", async () => {
    const { repo, pr, ctx } = proposing({ "README.md": "changed\n" });
    const outcome = await checkProposedConfig(ctx, { pull: pr.number, defaultBranch: "main" });
    expect(outcome.kind).toBe("skipped");
    expect(repo.runsOn(pr.headSha)).toEqual([]);
  });
});
