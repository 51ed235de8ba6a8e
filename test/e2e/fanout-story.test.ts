import { execSync } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { type Forge, type SeedResult, seed, startForge } from "@porchlight/forge";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AppServer, startAppServer } from "../../src/app/server.js";
import { main } from "../../src/cli/main.js";
import { captureIO } from "../util/cli-io.js";
import { docBlock, shellSteps } from "../util/doc-blocks.js";
import { settleApp } from "./harness.js";

const squash = (s: string) => s.trim().split(/\s+/).join(" ");

/**
 * Issue 19's "done when": docs/fanout.md tells the downstream story with the commands a user types, and
 * each command works as written, against the world `npm start` seeds (forge over HTTP and git, the app
 * answering its webhooks), printing what the page says it prints.
 */
describe("docs/fanout.md's story, typed as written against the seeded forge", () => {
  let forge: Forge;
  let world: SeedResult;
  let app: AppServer;
  const settle = () => settleApp(forge, app);

  beforeAll(async () => {
    forge = await startForge();
    world = await seed(forge);
    app = await startAppServer({
      appId: world.appId,
      privateKey: readFileSync(world.privateKeyPath, "utf8"),
      webhookSecret: world.webhookSecret,
      baseUrl: forge.apiUrl,
      port: 0,
      writeIntervalMs: 0,
      retryAfterUnitMs: 1,
      log: pino({ level: process.env.E2E_LOG ?? "silent" }),
    });
    forge.setWebhookUrl(app.webhookUrl);
    // What `npm start` does first: one sweep of every repository.
    await app.sweep();
    await settle();
    rmSync("/tmp/hello-v2", { recursive: true, force: true });
  }, 120_000);
  afterAll(async () => {
    rmSync("/tmp/hello-v2", { recursive: true, force: true });
    await app?.close();
    await forge?.stop();
  });

  it("every command works and prints what the page shows", async () => {
    const token = (login: string) => world.users.find((u) => u.login === login)!.pat;
    const fill = (text: string) =>
      text
        .replace("http://127.0.0.1:<forge port>/api/v3", forge.apiUrl)
        .replaceAll("<maintainer's token>", token("maintainer"))
        .replaceAll("<reviewer's token>", token("reviewer"));
    const env: Record<string, string> = { PATH: process.env.PATH ?? "" };
    const story = shellSteps(
      docBlock(
        "docs/fanout.md",
        `export PORCHLIGHT_API_URL=http://127.0.0.1:<forge port>/api/v3   # the "REST at" URL npm start prints`,
      ),
    );
    expect(story.filter((s) => s.line.includes("npx porchlight")).length).toBeGreaterThanOrEqual(10);
    for (const step of story) {
      const line = fill(step.line);
      let stdout = "";
      const exported = /^export (\w+)=(\S+)$/.exec(line);
      if (exported) {
        env[exported[1]!] = exported[2]!;
        continue;
      }
      const cli = /^(?:(GH_TOKEN)=(\S+) )?npx porchlight (.*)$/.exec(line);
      if (cli) {
        const io = captureIO({ env: { ...env, ...(cli[1] ? { GH_TOKEN: cli[2]! } : {}) } });
        const code = await main(cli[3]!.split(/\s+/), io);
        stdout = io.out();
        const stderr = io.err();
        expect({ line: step.line, code, stderr: stderr.includes("failed") ? stderr : "" }).toEqual({
          line: step.line,
          code: 0,
          stderr: "",
        });
      } else {
        stdout = execSync(line, { encoding: "utf8" });
      }
      await settle();
      const printed = stdout.split("\n").map(squash);
      for (const want of step.expected) {
        const parts = want.split("…").map(squash).filter(Boolean);
        const found = printed.some((p) => parts.every((part) => p.includes(part)));
        expect({ line: step.line, want, found, printed: found ? undefined : stdout }).toEqual({
          line: step.line,
          want,
          found: true,
          printed: undefined,
        });
      }
    }
  }, 120_000);
});
