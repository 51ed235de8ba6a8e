import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWorld, sweep, type World } from "./harness.js";

/**
 * A package whose render does not end within the app's bound — a function that sleeps, on an app whose
 * operator allows exec functions — pushed to a draft, with the five bytes of issue 55 beside it: the app
 * renders on worker threads within its bound, so it keeps answering webhooks of other repositories,
 * stops the render at the bound, reports it on the check, and does not try the same head again. (A
 * thread whose JavaScript never yields is stopped the same way: test/jobs/bounded-work.test.ts.)
 */
const owner = "acme";
const KPTFILE = (name: string, pipeline = "") =>
  `apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: ${name}\n${pipeline}`;
const LOOPING = KPTFILE("spin", "pipeline:\n  mutators:\n  - exec: sleep 600\n");
const CM = (name: string, value: string) =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  v: ${value}\n`;
/** Issue 55's five bytes before a resource: a blank line, `#`, then the first key. */
const FIVE_BYTES = `\n#\n${CM("five", "x")}`;
const BOUND_MS = 4000;

describe("a render that never ends, bounded (forge over HTTP and git)", () => {
  let w: World;
  const rest = () => w.users.alice!.rest;
  const renderCheck = async (repo: string, sha: string) =>
    (await rest().checks.listForRef({ owner, repo, ref: sha })).data.check_runs.filter(
      (r) => r.name === "porchlight/render",
    );

  beforeAll(async () => {
    w = await startWorld(
      {
        ".github/porchlight.yml": "functions:\n  runtimes: [builtin, exec]\n",
        "spin/Kptfile": KPTFILE("spin"),
        "spin/cm.yaml": CM("c", "a"),
      },
      {
        operatorRuntimes: ["builtin", "exec"],
        packageWork: { timeoutMs: BOUND_MS, workers: 2, memoryMb: 1024 },
      },
    );
    await w.forge.createRepo("acme/other", {
      files: { "README.md": "# other\n", "web/Kptfile": KPTFILE("web"), "web/cm.yaml": CM("w", "1") },
    });
    w.forge.setPermission("acme/other", "alice", "write");
    // the worker threads started and their modules loaded: the bound is the render's own
    const warm = await w.clone("alice", "acme/other");
    await warm.push("drafts/web/warm", { "web/cm.yaml": CM("w", "2") });
    await w.settle();
  }, 120_000);
  afterAll(() => w?.stop());

  /**
   * While the looping draft's render runs, pushes to acme/other and the webhook of each: answered at
   * once (the delivery's duration), until the looping head has its check. Returns the deliveries' durations.
   */
  const pushesElsewhereWhile = async (
    looping: { repo: string; sha: string },
    tag: string,
  ): Promise<number[]> => {
    const other = await w.clone("alice", "acme/other");
    const durations: number[] = [];
    for (let i = 0; i < 40 && (await renderCheck(looping.repo, looping.sha)).length === 0; i++) {
      const sha = await other.push(`drafts/web/${tag}-${i}`, { "web/cm.yaml": CM("w", `${10 + i}`) });
      await w.forge.webhooks.idle();
      const delivery = w.forge.webhooks
        .find("push")
        .find((d) => (d.payload as { after?: string }).after === sha);
      expect(delivery?.statusCode).toBeGreaterThanOrEqual(200);
      expect(delivery?.statusCode).toBeLessThan(300);
      durations.push(delivery?.duration ?? Number.POSITIVE_INFINITY);
      const health = await fetch(new URL("/healthz", w.app.url));
      expect(health.status).toBe(200);
    }
    return durations;
  };

  it("a draft: other repositories are served meanwhile, the check says it took too long, no retry", async () => {
    const clone = await w.clone("alice");
    const sha = await clone.push("drafts/spin/loop", {
      "spin/Kptfile": LOOPING,
      "spin/five.yaml": FIVE_BYTES,
    });
    const durations = await pushesElsewhereWhile({ repo: "blueprints", sha }, "draft");
    expect(durations.length).toBeGreaterThan(0);
    for (const d of durations) expect(d).toBeLessThan(1);
    await w.settle();
    const [check, ...more] = await renderCheck("blueprints", sha);
    expect(more).toEqual([]);
    expect(check?.conclusion).toBe("failure");
    expect(check?.output.title).toBe("Rendering spin took too long");
    expect(check?.output.summary).toContain("porchlight stopped it after 4 s");
    // the branch was left as pushed
    expect(await clone.git("ls-remote", "origin", "refs/heads/drafts/spin/loop")).toContain(sha);
    // a sweep (and another) does not render the same head again
    await sweep(w);
    await sweep(w);
    expect(await renderCheck("blueprints", sha)).toHaveLength(1);
    // the app renders the next push: the five bytes render as kpt renders them
    const next = await clone.push("drafts/spin/loop", { "spin/Kptfile": KPTFILE("spin") }, "HEAD");
    await w.settle();
    const [fixed] = await renderCheck("blueprints", next);
    expect(fixed?.conclusion).toBe("success");
    await clone.git("fetch", "--quiet", "origin");
    expect(await clone.git("show", "origin/drafts/spin/loop:spin/five.yaml")).toBe(
      `#\n${CM("five", "x")}`.trimEnd(),
    );
  }, 180_000);
});
