import { afterAll, beforeAll } from "vitest";

/**
 * What `start` starts, for the describe block that calls this: started before its tests and its own
 * `beforeAll` hooks, handed to `stop` after its own `afterAll` hooks (undefined when `start` failed).
 * Each member is read from the started value when used, so the block's helpers and hooks use what this
 * returns as they would the value; before the start, reading one throws, naming `what`.
 */
export function useStarted<T extends object>(
  what: string,
  start: () => Promise<T>,
  stop: (started: T | undefined) => Promise<void>,
  timeout?: number,
): T {
  let started: T | undefined;
  beforeAll(async () => {
    started = await start();
  }, timeout);
  afterAll(() => stop(started));
  return new Proxy({} as T, {
    get(_, key) {
      if (!started) throw new Error(`${what} is not started yet: use it in a test or a hook`);
      return Reflect.get(started, key);
    },
  });
}
