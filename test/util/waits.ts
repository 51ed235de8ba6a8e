/** A promise and the function that settles it. */
export function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

/**
 * Event-loop turns (and Redis round trips meanwhile) until `ok()`, at most `turns` of them `stepMs` apart;
 * no clock in the assertion. `ok` may ask over the network (a promise).
 */
export async function until(
  ok: () => boolean | Promise<boolean>,
  what: string,
  stepMs = 5,
  turns = 2000,
): Promise<void> {
  for (let i = 0; i < turns; i++) {
    if (await ok()) return;
    await new Promise((resolve) => setTimeout(resolve, stepMs));
  }
  throw new Error(`never happened: ${what}`);
}

/**
 * `until` for what a server does over real HTTP and git, or a client sees of it: asked every 50 ms, for
 * `ms` at the most (two minutes, the longest a test of such a world is given).
 */
export function eventually(what: string, ok: () => boolean | Promise<boolean>, ms = 120_000): Promise<void> {
  return until(ok, what, 50, Math.ceil(ms / 50));
}
