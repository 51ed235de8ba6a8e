import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { Store } from "../src/state.js";

/**
 * forge.json is the whole state, rewritten whole: what API requests change is gathered and written once a
 * second, not once a request, and a forge stopped writes what is pending (the restart in
 * test/cli/forge-seed.test.ts keeps an issue made just before the stop). The clock here is vitest's.
 */
describe("the forge's state on disk", () => {
  const dirs: string[] = [];
  afterEach(() => {
    vi.useRealTimers();
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  const store = () => {
    const dir = mkdtempSync(join(tmpdir(), "forge-state-"));
    dirs.push(dir);
    return { store: Store.inDir(dir, () => new Date(0)), file: join(dir, "forge.json") };
  };
  const logins = (file: string) =>
    (JSON.parse(readFileSync(file, "utf8")).users as { login: string }[]).map((u) => u.login);

  it("writes the changes of many requests once, within a second", () => {
    vi.useFakeTimers();
    const { store: s, file } = store();
    for (const login of ["ada", "brian", "carol"]) {
      s.ensureUser(login);
      s.saveSoon();
    }
    expect(existsSync(file)).toBe(false);
    vi.advanceTimersByTime(999);
    expect(existsSync(file)).toBe(false);
    vi.advanceTimersByTime(1);
    expect(logins(file)).toEqual(["ada", "brian", "carol"]);
    // nothing pending: no second write comes
    s.ensureUser("dave");
    vi.advanceTimersByTime(5_000);
    expect(logins(file)).toEqual(["ada", "brian", "carol"]);
  });

  it("writes at once what its owner does, and with it what requests left pending", () => {
    vi.useFakeTimers();
    const { store: s, file } = store();
    s.ensureUser("ada");
    s.saveSoon();
    s.ensureUser("brian");
    s.save();
    expect(logins(file)).toEqual(["ada", "brian"]);
    // the pending write was the one just made
    expect(vi.getTimerCount()).toBe(0);
  });
});
