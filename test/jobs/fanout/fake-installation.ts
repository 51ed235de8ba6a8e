import { pino } from "pino";
import { GitHubError } from "../../../src/github/errors.js";
import type { InstallationPort, InstallationRepository } from "../../../src/github/port.js";
import type { FanoutContext } from "../../../src/jobs/fanout/context.js";
import { rootOutbox } from "../../../src/jobs/outbox.js";
import { FakeRenderer } from "../fake-renderer.js";
import { FakeRepo } from "../fake-repo.js";

export const BOT = {
  login: "porchlight[bot]",
  author: { name: "porchlight[bot]", email: "bot@porchlight.test" },
};

/** An installation over FakeRepos: repositories by short name, with topics. */
export class FakeInstallation implements InstallationPort {
  readonly repos = new Map<string, { repo: FakeRepo; topics: string[] }>();

  add(
    name: string,
    files: Record<string, string> = { "README.md": `# ${name}\n` },
    topics: string[] = [],
  ): FakeRepo {
    const repo = new FakeRepo(`acme/${name}`);
    repo.commit("main", files, "initial", true);
    this.repos.set(name, { repo, topics });
    return repo;
  }

  get(name: string): FakeRepo {
    const r = this.repos.get(name);
    if (!r) throw new Error(`no repo ${name}`);
    return r.repo;
  }

  async listRepositories(): Promise<InstallationRepository[]> {
    return [...this.repos].map(([name, { repo, topics }]) => ({
      id: repo.id,
      fullName: `acme/${name}`,
      topics,
      defaultBranch: "main",
      cloneUrl: `https://forge.test/acme/${name}.git`,
      archived: false,
    }));
  }

  repo(r: InstallationRepository): FakeRepo {
    return this.get(r.id.repo);
  }

  async repository(id: { owner: string; repo: string }): Promise<InstallationRepository> {
    const found = (await this.listRepositories()).find(
      (r) => r.id.owner === id.owner && r.id.repo === id.repo,
    );
    if (!found) throw new GitHubError("not-found", `no repository ${id.owner}/${id.repo}`, 404);
    return found;
  }

  async readFile(file: { owner: string; repo: string; path: string }): Promise<string | undefined> {
    const entry = this.repos.get(file.repo);
    if (!entry || file.owner !== "acme") return undefined;
    return entry.repo.getFile(file.path, entry.repo.defaultBranch);
  }

  /** Every port call of every repository, as `repo:call`. */
  calls(): string[] {
    return [...this.repos].flatMap(([name, { repo }]) => repo.calls.map((c) => `${name}:${c}`));
  }

  clearCalls(): void {
    for (const { repo } of this.repos.values()) repo.calls.length = 0;
  }
}

export const WRITES = [
  "commitTree",
  "createPull",
  "updatePull",
  "addLabels",
  "mergePull",
  "createTag",
  "createComment",
  "upsertCheckRun",
];

export function fanoutContext(installation: FakeInstallation): FanoutContext & { renderer: FakeRenderer } {
  return {
    installation,
    renderer: new FakeRenderer(),
    bot: BOT,
    log: pino({ level: "silent" }),
    runtimes: ["builtin"],
    outbox: rootOutbox(async () => {}),
    now: () => new Date("2024-05-01T10:00:00Z"),
  };
}

/** Publishes `files` of `pkg` on the upstream's main as tag `<pkg>/v<n>`; returns the commit. */
export function publish(
  repo: FakeRepo,
  pkg: string,
  n: number,
  files: Record<string, string | null>,
): string {
  const prefixed = Object.fromEntries(Object.entries(files).map(([p, t]) => [`${pkg}/${p}`, t]));
  const sha = repo.commit("main", prefixed, `publish ${pkg} v${n}`);
  repo.refs.set(`refs/tags/${pkg}/v${n}`, sha);
  return sha;
}
