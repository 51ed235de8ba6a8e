import { pino } from "pino";
import { defaultConfig, type RepoConfig } from "../../src/config/resolve.js";
import type { JobContext } from "../../src/jobs/context.js";
import { PorchlightEvents, type PublishedEvent } from "../../src/jobs/events.js";
import { FakeRenderer } from "./fake-renderer.js";
import type { FakeRepo } from "./fake-repo.js";

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
