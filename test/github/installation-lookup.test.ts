import { describe, expect, it } from "vitest";
import { GitHubError } from "../../src/github/errors.js";
import { installationLookup } from "../../src/github/installation-lookup.js";
import type { InstallationPort, RepoId } from "../../src/github/port.js";

/** An app installed on `acme` (id 1) and `other` (id 2): what `GET /repos/{owner}/{repo}/installation` answers. */
function fakeApp(failOpen = 0) {
  const opened: number[] = [];
  let failures = failOpen;
  return {
    opened,
    app: {
      installationIdOf: async (repo: RepoId) => {
        if (repo.owner === "acme") return 1;
        if (repo.owner === "other") return 2;
        if (repo.owner === "down") throw new GitHubError("server", "GitHub is down", 502);
        throw new GitHubError(
          "not-found",
          `finding the installation of ${repo.owner}/${repo.repo}: Not Found`,
          404,
        );
      },
      installation: async (id: number) => {
        opened.push(id);
        if (failures-- > 0) throw new GitHubError("server", "token refused", 500);
        return { id } as unknown as InstallationPort;
      },
    },
  };
}

describe("installationLookup", () => {
  it("answers the installation covering a repository, opening each installation once per lookup", async () => {
    const { app, opened } = fakeApp();
    const lookup = installationLookup(app);
    const a = await lookup({ owner: "other", repo: "deploy-dev" });
    const b = await lookup({ owner: "other", repo: "deploy-prod" });
    const c = await lookup({ owner: "acme", repo: "cluster-01" });
    expect(a).toBe(b);
    expect(c).not.toBe(a);
    expect(opened).toEqual([2, 1]);
  });

  it("answers undefined where the app is not installed (GitHub's 404), and throws any other failure", async () => {
    const lookup = installationLookup(fakeApp().app);
    expect(await lookup({ owner: "stranger", repo: "x" })).toBeUndefined();
    await expect(lookup({ owner: "down", repo: "x" })).rejects.toThrow("GitHub is down");
  });

  it("opens an installation again after opening it failed", async () => {
    const { app, opened } = fakeApp(1);
    const lookup = installationLookup(app);
    await expect(lookup({ owner: "other", repo: "deploy-dev" })).rejects.toThrow("token refused");
    expect(await lookup({ owner: "other", repo: "deploy-dev" })).toEqual({ id: 2 });
    expect(opened).toEqual([2, 2]);
  });
});

describe("installationLookup.account", () => {
  it("finds the installation on an account, shares it with repository lookups, and is undefined where none is", async () => {
    const { app, opened } = fakeApp();
    const lookup = installationLookup({
      ...app,
      installationIdOfAccount: async (login: string) => {
        if (login === "other") return 2;
        throw new GitHubError("not-found", `finding the installation on ${login}: Not Found`, 404);
      },
    });
    const a = await lookup.account?.("other");
    const b = await lookup({ owner: "other", repo: "deploy-dev" });
    expect(a).toBe(b);
    expect(opened).toEqual([2]);
    expect(await lookup.account?.("stranger")).toBeUndefined();
  });

  it("is absent without the app's key to ask with", () => {
    expect(installationLookup(fakeApp().app).account).toBeUndefined();
  });
});
