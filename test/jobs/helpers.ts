import { pino } from "pino";
import { defaultConfig, type RepoConfig } from "../../src/config/resolve.js";
import { checkProposal } from "../../src/jobs/check-proposal/index.js";
import type { JobContext } from "../../src/jobs/context.js";
import { PorchlightEvents, type PublishedEvent } from "../../src/jobs/events.js";
import { FakeRenderer } from "./fake-renderer.js";
import { type FakeRepo, fakeRepoWith } from "./fake-repo.js";

export const KPTFILE = "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: app\n";

export function cm(name: string, extra = ""): string {
  return `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  a: "1"\n${extra}`;
}

export interface TestJobContext extends JobContext {
  renderer: FakeRenderer;
  published: PublishedEvent[];
}

export function jobContext(port: FakeRepo, config: Partial<RepoConfig> = {}): TestJobContext {
  const events = new PorchlightEvents();
  const published: PublishedEvent[] = [];
  events.onPublished((e) => {
    published.push(e);
  });
  return {
    port,
    config: { ...defaultConfig(), ...config },
    baseBranch: "main",
    renderer: new FakeRenderer(),
    bot: { login: "porchlight[bot]", author: { name: "porchlight[bot]", email: "bot@porchlight.test" } },
    events,
    log: pino({ level: "silent" }),
    operatorRuntimes: ["builtin"],
    published,
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
  repo.branch(PROPOSAL_BRANCH, "main");
  repo.commit(PROPOSAL_BRANCH, { "apps/web/new.yaml": `${cm("new")}${rendered}` });
  const pr = repo.openPull(PROPOSAL_BRANCH);
  const ctx = jobContext(repo);
  await checkProposal(ctx, { pull: pr.number });
  return { repo, pr, ctx };
}
