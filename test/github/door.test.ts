import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

/**
 * The one door to GitHub, as the import graph shows it: Octokit, probot and Bottleneck are imported in
 * src/github and in the wiring that receives events (probot's app, its handlers, the server and the
 * Action that hand events to it), nowhere else. Everything else reaches GitHub through the port
 * (src/github/port.ts) and sees GitHubError, never Octokit's types.
 */
const ROOT = join(import.meta.dirname, "../..");
const SRC = join(ROOT, "src");
const GITHUB_PACKAGES = /^(probot|@probot\/|@octokit\/|octokit$|bottleneck)/;
const WIRING = [
  "src/app/events.ts", // the table of events: which webhook starts which handler
  "src/app/probot-app.ts", // the probot app: the table's routes registered
  "src/app/handlers.ts", // probot's event context in, jobs out
  "src/app/server.ts", // the Probot that receives webhooks
  "src/action/probot.ts", // the Probot a workflow run hands its event to
  "src/action/run.ts",
];

function sources(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith(".ts"))
    .map((e) => relative(ROOT, join(e.parentPath, e.name)));
}

/** Every module a file imports or re-exports, statically or dynamically. */
function importsOf(text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^"'`;]*?\bfrom\s*["']([^"']+)["']/g))
    found.push(m[1] as string);
  for (const m of text.matchAll(/(?:^|\n)\s*import\s*["']([^"']+)["']/g)) found.push(m[1] as string);
  for (const m of text.matchAll(/\bimport\(\s*["']([^"']+)["']\s*\)/g)) found.push(m[1] as string);
  return found;
}

describe("the door to GitHub", () => {
  const files = sources(SRC);

  it("finds imports however they are written", () => {
    const text = `import type { A } from "probot";\nimport {\n  B,\n} from "@octokit/rest";\nexport { C } from "bottleneck";\nconst d = await import("@octokit/core");\nimport "probot/side-effect";\n`;
    expect(importsOf(text)).toEqual([
      "probot",
      "@octokit/rest",
      "bottleneck",
      "probot/side-effect",
      "@octokit/core",
    ]);
  });

  it("has Octokit, probot and Bottleneck imported only in src/github and the wiring that receives events", () => {
    const outside = files
      .filter((f) => !f.startsWith("src/github/") && !WIRING.includes(f))
      .flatMap((f) =>
        importsOf(readFileSync(join(ROOT, f), "utf8"))
          .filter((m) => GITHUB_PACKAGES.test(m))
          .map((m) => `${f} imports ${m}`),
      );
    expect(outside).toEqual([]);
  });

  it("lets the wiring import probot only: Octokit itself stays in src/github", () => {
    const octokit = WIRING.flatMap((f) =>
      importsOf(readFileSync(join(ROOT, f), "utf8"))
        .filter((m) => GITHUB_PACKAGES.test(m) && !/^probot$/.test(m))
        .map((m) => `${f} imports ${m}`),
    );
    expect(octokit).toEqual([]);
    // The list names files that exist: a renamed wiring file must not leave a stale exemption.
    for (const f of WIRING) expect(files).toContain(f);
  });

  it("is where Octokit is actually used (the scan sees src/github's imports)", () => {
    const inside = files
      .filter((f) => f.startsWith("src/github/"))
      .flatMap((f) => importsOf(readFileSync(join(ROOT, f), "utf8")))
      .filter((m) => GITHUB_PACKAGES.test(m));
    expect(inside).toEqual(expect.arrayContaining(["@octokit/rest", "probot", "bottleneck"]));
  });
});
