import { describe, expect, it } from "vitest";
import { scheduleSweeps, type Timers } from "../../src/queue/sweep-schedule.js";

/** Timers fired by hand: what is armed, and `fire()` runs the one armed timer. */
function manualTimers() {
  const armed: { run: () => void; ms: number }[] = [];
  const timers: Timers = {
    setTimeout: (run, ms) => {
      const t = { run, ms };
      armed.push(t);
      return t;
    },
    clearTimeout: (h) => {
      const i = armed.indexOf(h as (typeof armed)[number]);
      if (i >= 0) armed.splice(i, 1);
    },
  };
  const fire = () => {
    const t = armed.shift();
    if (!t) throw new Error("no timer armed");
    t.run();
    return t.ms;
  };
  return { armed, timers, fire };
}

const turns = async (n = 5) => {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
};

describe("the periodic sweep", () => {
  it("sweeps at start-up, then again after each sweep ends, even after one threw", async () => {
    const t = manualTimers();
    const errors: unknown[] = [];
    let n = 0;
    const s = scheduleSweeps({
      intervalMs: 1000,
      atStart: true,
      timers: t.timers,
      onError: (e) => {
        errors.push(e);
        return undefined;
      },
      sweep: async () => {
        n++;
        if (n === 1) throw new Error("GitHub is down");
      },
    });
    expect(t.fire()).toBe(0); // the start-up sweep, at once
    await turns();
    expect(errors).toHaveLength(1);
    expect(t.fire()).toBe(1000);
    await turns();
    expect(t.fire()).toBe(1000);
    await turns();
    expect(n).toBe(3);
    expect(s.count).toBe(3);
    await s.stop();
    expect(t.armed).toEqual([]);
  });

  it("never overlaps itself: while a sweep runs no timer is armed, and the next one is armed when it ends", async () => {
    const t = manualTimers();
    let release!: () => void;
    let running = 0;
    let most = 0;
    const s = scheduleSweeps({
      intervalMs: 5,
      atStart: false,
      timers: t.timers,
      onError: () => undefined,
      sweep: async () => {
        running++;
        most = Math.max(most, running);
        await new Promise<void>((r) => {
          release = r;
        });
        running--;
      },
    });
    t.fire();
    await turns();
    expect(running).toBe(1);
    expect(t.armed).toEqual([]);
    release();
    await turns();
    expect(t.armed.map((a) => a.ms)).toEqual([5]);
    t.fire();
    await turns();
    release();
    await turns();
    expect(most).toBe(1);
    expect(s.count).toBe(2);
    const stopping = s.stop();
    expect(t.armed).toEqual([]);
    await stopping;
  });

  it("with interval 0 sweeps only at start-up", async () => {
    const t = manualTimers();
    let n = 0;
    const s = scheduleSweeps({
      intervalMs: 0,
      atStart: true,
      timers: t.timers,
      onError: () => undefined,
      sweep: async () => void n++,
    });
    t.fire();
    await turns();
    expect(n).toBe(1);
    expect(t.armed).toEqual([]);
    await s.stop();
  });

  it("keeps sweeping on real timers with a short interval: at least three sweeps, the first one failing", async () => {
    let n = 0;
    let reached!: () => void;
    const three = new Promise<void>((r) => {
      reached = r;
    });
    const errors: unknown[] = [];
    const s = scheduleSweeps({
      intervalMs: 1,
      atStart: true,
      onError: (e) => {
        errors.push(e);
        return undefined;
      },
      sweep: async () => {
        n++;
        if (n === 3) reached();
        if (n === 1) throw new Error("first sweep fails");
      },
    });
    await three;
    await s.stop();
    expect(errors).toHaveLength(1);
    expect(s.count).toBeGreaterThanOrEqual(3);
  });

  it("a sweep that failed on a spent rate limit runs again at the reset, even with no periodic sweep", async () => {
    const t = manualTimers();
    let n = 0;
    scheduleSweeps({
      intervalMs: 0,
      atStart: true,
      timers: t.timers,
      onError: () => 450_000,
      sweep: async () => {
        n++;
        if (n === 1) throw new Error("API rate limit exceeded");
      },
    });
    expect(t.fire()).toBe(0);
    await turns();
    expect(t.fire()).toBe(450_000); // at the reset, not after an interval
    await turns();
    expect(n).toBe(2);
    expect(t.armed).toEqual([]); // it succeeded: no periodic sweep was asked for
  });
});
