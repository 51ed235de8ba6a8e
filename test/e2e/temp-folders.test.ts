import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kptfile, settings } from "../util/krm.js";
import { type ChildWorld, kill9, startApp, startChildWorld } from "./app-child.js";

/**
 * `porchlight serve` killed with SIGKILL leaves its temporary cache folder (clones of private
 * repositories) behind; the next start removes it and says so, and leaves alone the folders of a process
 * still alive and those it cannot tell the maker of. Each app is given a temporary directory of the
 * test's own (TMPDIR), so no other test's folders are in sight.
 */
describe("temporary folders a killed process left (app as a child process, forge over HTTP and git)", () => {
  let w: ChildWorld;
  let tmp: string;

  beforeAll(async () => {
    tmp = mkdtempSync(join(tmpdir(), "temp-folders-"));
    w = await startChildWorld({ "apps/web/Kptfile": kptfile("web"), "apps/web/cm.yaml": settings("0") });
  });
  afterAll(async () => {
    await w?.stop();
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  const caches = () => readdirSync(tmp).filter((n) => n.startsWith("porchlight-cache-"));

  it("the next start removes the cache folder of a process killed with SIGKILL, and only that", async () => {
    const env = { TMPDIR: tmp };
    const first = await startApp(w.forge, w.creds, env);
    w.apps.push(first);
    const left = caches();
    expect(left, first.output()).toHaveLength(1);
    await kill9(w.forge, first);
    expect(caches()).toEqual(left);

    // a folder of a process that is alive (this one), and one with no mark (another program's)
    const live = join(tmp, `porchlight-cache-${process.pid}-0123456789abcdef-Xy12Ab`);
    mkdirSync(live);
    const unmarked = join(tmp, "porchlight-api-unmarked");
    mkdirSync(unmarked);

    const second = await startApp(w.forge, w.creds, env);
    w.apps.push(second);
    expect(existsSync(join(tmp, left[0] as string)), second.output()).toBe(false);
    expect(second.output()).toContain("removed the temporary folders of a porchlight process that is gone");
    expect(second.output()).toContain(left[0]);
    expect(existsSync(live)).toBe(true);
    expect(existsSync(unmarked)).toBe(true);
    // the second app's own folder, besides the live one
    expect(caches()).toHaveLength(2);
  }, 60_000);
});
