/**
 * Progress for long CLI operations. On a terminal: one line redrawn in place, a spinner (or a bar when
 * the step knows its total) that keeps turning while the step waits. Otherwise (a pipe, CI logs): plain
 * lines, one when a step starts and one when it ends, and a line per quarter for counted steps, so logs
 * stay readable. Progress goes to stderr: stdout stays for the command's output (YAML, JSON, tables).
 */
export interface Progress {
  /** Starts a step; `total` makes it a counted step with a bar. */
  step(label: string, total?: number): ProgressStep;
}

interface ProgressStep {
  /** Advances a counted step by `n` (default 1); `detail` names what is being done now. */
  tick(n?: number, detail?: string): void;
  /** Ends the step as done; `note` is shown after the label. */
  done(note?: string): void;
  /** Ends the step as failed. */
  fail(note?: string): void;
}

/** Calls `fn` every `ms` until cancelled; injectable so tests never wait on a clock. */
export type Scheduler = (fn: () => void, ms: number) => { cancel(): void };

export interface ProgressOptions {
  write: (text: string) => void;
  tty: boolean;
  /** Columns of the bar (default 24). */
  barWidth?: number;
  schedule?: Scheduler;
}

export const SPINNER_FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"] as const;
const CLEAR_LINE = "\r\x1b[2K";

const intervalScheduler: Scheduler = (fn, ms) => {
  const timer = setInterval(fn, ms);
  timer.unref?.();
  return { cancel: () => clearInterval(timer) };
};

/** Renders a bar of `width` cells for `done` of `total`: `[#######.........]`. */
export function formatBar(done: number, total: number, width: number): string {
  const ratio = total <= 0 ? 1 : Math.min(1, Math.max(0, done / total));
  const filled = Math.round(ratio * width);
  return `[${"#".repeat(filled)}${".".repeat(width - filled)}]`;
}

export function createProgress(opts: ProgressOptions): Progress {
  return opts.tty ? new TerminalProgress(opts) : new PlainProgress(opts.write);
}

/** A progress that shows nothing (for `--quiet` and machine output). */
export const silentProgress: Progress = {
  step: () => ({ tick: () => {}, done: () => {}, fail: () => {} }),
};

class PlainProgress implements Progress {
  constructor(private readonly write: (text: string) => void) {}

  step(label: string, total?: number): ProgressStep {
    const write = this.write;
    write(`${label}...\n`);
    let count = 0;
    let quarter = 0;
    let ended = false;
    return {
      tick(n = 1, detail) {
        if (ended || total === undefined || total <= 0) return;
        count += n;
        const q = Math.floor((Math.min(count, total) / total) * 4);
        if (q > quarter && q < 4) {
          quarter = q;
          write(`${label}: ${count}/${total}${detail ? ` (${detail})` : ""}\n`);
        }
      },
      done(note) {
        if (ended) return;
        ended = true;
        write(`${label}: done${note ? ` (${note})` : ""}\n`);
      },
      fail(note) {
        if (ended) return;
        ended = true;
        write(`${label}: failed${note ? ` (${note})` : ""}\n`);
      },
    };
  }
}

class TerminalProgress implements Progress {
  constructor(private readonly opts: ProgressOptions) {}

  step(label: string, total?: number): ProgressStep {
    const { write } = this.opts;
    const width = this.opts.barWidth ?? 24;
    let frame = 0;
    let count = 0;
    let detail = "";
    let ended = false;
    const draw = () => {
      const spin = SPINNER_FRAMES[frame % SPINNER_FRAMES.length];
      const counted =
        total !== undefined ? ` ${formatBar(count, total, width)} ${Math.min(count, total)}/${total}` : "";
      write(`${CLEAR_LINE}${spin} ${label}${counted}${detail ? ` ${detail}` : ""}`);
    };
    const timer = (this.opts.schedule ?? intervalScheduler)(() => {
      frame++;
      draw();
    }, 80);
    draw();
    const end = (mark: string, note: string | undefined) => {
      if (ended) return;
      ended = true;
      timer.cancel();
      write(`${CLEAR_LINE}${mark} ${label}${note ? ` (${note})` : ""}\n`);
    };
    return {
      tick(n = 1, d) {
        if (ended) return;
        count += n;
        detail = d ?? "";
        draw();
      },
      done: (note) => end("✔", note),
      fail: (note) => end("✖", note),
    };
  }
}
