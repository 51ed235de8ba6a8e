import { pino } from "pino";
import { defaultConfig, type RepoConfig } from "../../src/config/resolve.js";
import { checkProposal } from "../../src/jobs/check-proposal/index.js";
import { runCommands } from "../../src/jobs/commands/index.js";
import type { JobContext } from "../../src/jobs/context.js";
import type { FollowUp, Outbox, PublishedEvent } from "../../src/jobs/outbox.js";
import { FakeRenderer } from "./fake-renderer.js";
import { type FakeRepo, fakeRepoWith } from "./fake-repo.js";
import { FakeInstallation } from "./fanout/fake-installation.js";

export const KPTFILE = "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: app\n";

export function cm(name: string, extra = ""): string {
  return `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  a: "1"\n${extra}`;
}

export interface TestJobContext extends JobContext {
  renderer: FakeRenderer;
  /** The published revisions whose fan-out the job recorded in its outbox. */
  published: PublishedEvent[];
  /** Every follow-up the job recorded, in order. */
  followUps: FollowUp[];
}

export function jobContext(port: FakeRepo, config: Partial<RepoConfig> = {}): TestJobContext {
  const published: PublishedEvent[] = [];
  const followUps: FollowUp[] = [];
  // Every follow-up as recorded, again or not (the runner's outbox queues one per key and job; a test
  // sees what the job asked for).
  const outbox: Outbox = {
    add: (f) => {
      followUps.push(f);
      if (f.task === "fanout-published") published.push(f.event);
    },
    send: async () => {},
  };
  // The installation holds the repository, as the app's does.
  const installation = new FakeInstallation();
  installation.repos.set(port.id.repo, { repo: port, topics: [] });
  return {
    port,
    config: { ...defaultConfig(), ...config },
    baseBranch: "main",
    renderer: new FakeRenderer(),
    bot: { login: "porchlight[bot]", author: { name: "porchlight[bot]", email: "bot@porchlight.test" } },
    outbox,
    installation,
    log: pino({ level: "silent" }),
    operatorRuntimes: ["builtin"],
    published,
    followUps,
  };
}

/** A pull request into main from `branch`, made from main with `files` committed on it; a job context over `repo`. */
export function proposalOf(repo: FakeRepo, branch: string, files: Record<string, string | null>) {
  repo.branch(branch, "main");
  repo.commit(branch, files);
  const pr = repo.openPull(branch);
  return { repo, pr, ctx: jobContext(repo) };
}

/** A comment by `author` on pull request `pull`, its slash-commands run: the bot's reply to it ("" for none). */
export function saying(repo: FakeRepo, pull: number, ctx: JobContext) {
  return async (author: string, body: string): Promise<string> => {
    const c = repo.addComment(pull, body);
    await runCommands(ctx, { issue: pull, commentId: c.id, body, author });
    return repo.comments.find((x) => x.body.includes(`reply comment=${c.id}`))?.body ?? "";
  };
}

/** The draft branch of checkedProposal's proposal. */
export const PROPOSAL_BRANCH = "drafts/apps/web/edit-1";

/**
 * A proposal ready to publish: package apps/web rendered on main, its draft adding a resource, the pull
 * request opened and checked; bob may write, rita only read.
 */
export async function checkedProposal() {
  const rendered = "# rendered\n";
  const repo = fakeRepoWith({ "apps/web/Kptfile": KPTFILE, "apps/web/cm.yaml": `${cm("web")}${rendered}` });
  repo.permissions.set("bob", "write");
  repo.permissions.set("rita", "read");
  const proposal = proposalOf(repo, PROPOSAL_BRANCH, { "apps/web/new.yaml": `${cm("new")}${rendered}` });
  await checkProposal(proposal.ctx, { pull: proposal.pr.number });
  return proposal;
}
