import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, utimesSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { keepTip, tipsOffered } from "../../src/github/git-repo/tips.js";

const sha = (n: number) => n.toString(16).padStart(40, "0");

/**
 * What a fetch in process offers the server as `have` (tips.ts): the server sends what the wanted commit
 * reaches less what the offered commits reach, so the offered are the branch's own tip and the tips most
 * recently fetched or pushed — the base branch a new draft was made from, the drafts of the last minutes —
 * not whichever of a repository's hundreds of tips its folder lists first.
 */
describe("the commits a fetch offers as held", () => {
  const dir = mkdtempSync(join(tmpdir(), "porchlight-tips-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("are the branch's own tip, then the 31 most recently fetched or pushed of 300", async () => {
    const day = 86_400;
    const now = Date.now() / 1000;
    for (let i = 1; i <= 300; i++) {
      await keepTip(dir, `refs/heads/drafts/pkg/v${i}`, sha(i));
      // draft i fetched or pushed i minutes after the first: the newest last
      const file = createHash("sha1").update(`refs/heads/drafts/pkg/v${i}`).digest("hex");
      const at = now - day + i * 60;
      utimesSync(join(dir, "refs", "porchlight", "tips", file), at, at);
    }
    await keepTip(dir, "refs/heads/drafts/pkg/new", sha(1000));
    const offered = await tipsOffered(dir, "refs/heads/drafts/pkg/new");
    expect(offered[0]).toBe(sha(1000));
    expect(offered.slice(1)).toEqual(Array.from({ length: 31 }, (_, i) => sha(300 - i)));
  });
});
