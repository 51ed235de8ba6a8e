import { chmodSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { seed, startForge } from "../src/index.js";

const modeOf = (path: string) => statSync(path).mode & 0o777;

/**
 * The forge's data folder holds every user's token, the app's private key and its webhook secret
 * (forge.json), and seeding writes the app's key beside it: each is its owner's alone, also where an
 * older forge left the file readable by others.
 */
describe("the forge's secrets on disk", () => {
  const dirs: string[] = [];
  const tmp = () => {
    const d = mkdtempSync(join(tmpdir(), "forge-private-"));
    dirs.push(d);
    return d;
  };
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it("makes its data folder 0700 and writes forge.json and the seeded key 0600", async () => {
    const data = join(tmp(), "data");
    const forge = await startForge({ dataDir: data });
    try {
      const world = await seed(forge);
      expect(modeOf(data)).toBe(0o700);
      expect(modeOf(join(data, "forge.json"))).toBe(0o600);
      expect(modeOf(world.privateKeyPath)).toBe(0o600);
    } finally {
      await forge.stop();
    }
  });

  it("tightens a forge.json and a key file an older forge left 0644", async () => {
    const data = tmp();
    const first = await startForge({ dataDir: data });
    await seed(first);
    await first.stop();
    const state = join(data, "forge.json");
    const key = join(data, "porchlight-app.pem");
    chmodSync(state, 0o644);
    writeFileSync(key, "an old key\n", { mode: 0o644 });
    chmodSync(key, 0o644);

    const again = await startForge({ dataDir: data });
    try {
      // opened: the tokens are no longer readable by others even before anything changes
      expect(modeOf(state)).toBe(0o600);
      chmodSync(state, 0o644);
      again.createUser("newcomer", { pat: true });
      expect(modeOf(state)).toBe(0o600);
      await seed(again);
      expect(modeOf(key)).toBe(0o600);
    } finally {
      await again.stop();
    }
  });
});
