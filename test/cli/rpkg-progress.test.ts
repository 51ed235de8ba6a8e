import { describe, expect, it } from "vitest";
import { createProgress, formatBar, type Scheduler, SPINNER_FRAMES } from "../../src/cli/progress.js";

/** A scheduler the test drives by hand: no clock. */
function manualScheduler() {
  const timers: { fn: () => void; cancelled: boolean }[] = [];
  const schedule: Scheduler = (fn) => {
    const t = { fn, cancelled: false };
    timers.push(t);
    return { cancel: () => (t.cancelled = true) };
  };
  return {
    schedule,
    fire: () => {
      for (const t of timers) if (!t.cancelled) t.fn();
    },
    active: () => timers.filter((t) => !t.cancelled).length,
  };
}

function capture() {
  const out: string[] = [];
  return { write: (t: string) => out.push(t), text: () => out.join(""), out };
}

describe("progress on a terminal", () => {
  it("redraws one line in place, turns the spinner on each tick of the scheduler, and ends the line", () => {
    const c = capture();
    const s = manualScheduler();
    const step = createProgress({ write: c.write, tty: true, schedule: s.schedule }).step("Fetching");
    expect(c.out[0]).toBe(`\r\x1b[2K${SPINNER_FRAMES[0]} Fetching`);
    s.fire();
    expect(c.out[1]).toBe(`\r\x1b[2K${SPINNER_FRAMES[1]} Fetching`);
    step.done("3 files");
    expect(c.out.at(-1)).toBe("\r\x1b[2K✔ Fetching (3 files)\n");
    expect(s.active()).toBe(0);
    step.fail();
    expect(c.out.at(-1)).toBe("\r\x1b[2K✔ Fetching (3 files)\n");
  });

  it("draws a bar for a counted step", () => {
    const c = capture();
    const s = manualScheduler();
    const step = createProgress({ write: c.write, tty: true, schedule: s.schedule, barWidth: 4 }).step(
      "Pushing",
      4,
    );
    step.tick(1, "a.yaml");
    expect(c.out.at(-1)).toBe(`\r\x1b[2K${SPINNER_FRAMES[0]} Pushing [#...] 1/4 a.yaml`);
    step.tick(5);
    expect(c.out.at(-1)).toBe(`\r\x1b[2K${SPINNER_FRAMES[0]} Pushing [####] 4/4`);
    step.fail("rejected");
    expect(c.out.at(-1)).toBe("\r\x1b[2K✖ Pushing (rejected)\n");
  });
});

describe("progress in a log (not a terminal)", () => {
  it("writes plain lines: start, each quarter of a counted step, end; no escape codes", () => {
    const c = capture();
    const p = createProgress({ write: c.write, tty: false });
    const step = p.step("Reading", 8);
    for (let i = 0; i < 8; i++) step.tick();
    step.done();
    p.step("Merging").fail("conflicts");
    expect(c.text()).toBe(
      [
        "Reading...",
        "Reading: 2/8",
        "Reading: 4/8",
        "Reading: 6/8",
        "Reading: done",
        "Merging...",
        "Merging: failed (conflicts)",
        "",
      ].join("\n"),
    );
    expect(c.text()).not.toContain("\x1b");
  });
});

describe("formatBar", () => {
  it.each([
    [0, 10, 10, "[..........]"],
    [5, 10, 10, "[#####.....]"],
    [12, 10, 10, "[##########]"],
    [0, 0, 3, "[###]"],
  ])("%i of %i in %i cells", (done, total, width, bar) => {
    expect(formatBar(done, total, width)).toBe(bar);
  });
});
