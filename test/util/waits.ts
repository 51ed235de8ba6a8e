/** A promise and the function that settles it. */
export function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

/**
 * Event-loop turns (and Redis round trips meanwhile) until `ok()`, at most 2,000 of them `stepMs` apart;
 * no clock in the assertion.
 */
export async function until(ok: () => boolean, what: string, stepMs = 5): Promise<void> {
  for (let i = 0; i < 2000; i++) {
    if (ok()) return;
    await new Promise((resolve) => setTimeout(resolve, stepMs));
  }
  throw new Error(`never happened: ${what}`);
}
