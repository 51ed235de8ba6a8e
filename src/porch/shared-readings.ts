/**
 * Readings of repositories shared by the registrations the index reads together. Porch's layout puts
 * several registrations in one repository, a directory each; a change heard on it makes every one of
 * them read again, and each reading listed the repository's refs, parsed every revision tag and found
 * every revision of the repository before keeping its own directory's. Read together, they share one
 * listing and what is found from it: Porch's iterative test (four registrations of one repository,
 * hundreds of tags) read each change four times over.
 *
 * A listing is shared only with a reading that began no later than the listing did: a reading begun
 * after a write was answered must see that write, and a listing started before it may not.
 */
export class SharedReadings {
  readonly #listings = new Map<string, { started: number; listing: Promise<unknown> }>();
  readonly #derived = new WeakMap<object, Map<string, Promise<unknown>>>();
  #open = true;

  constructor(private readonly now: () => number = () => performance.now()) {}

  /**
   * Listing `key` (a repository's refs and pull requests) for a reading begun at `since`: the one
   * another reading started at or after `since`, else `read()`, which later readings may then share.
   */
  listing<T>(key: string, since: number, read: () => Promise<T>): Promise<T> {
    if (!this.#open) return read();
    const kept = this.#listings.get(key);
    if (kept && kept.started >= since) return kept.listing as Promise<T>;
    const started = this.now();
    const listing = read();
    this.#listings.set(key, { started, listing });
    return listing;
  }

  /**
   * What `compute` makes of `source` (a listing's promise) under `key`, computed once for every reading
   * that holds the same listing: what is found from one listing is the same for each.
   */
  derived<T>(source: object, key: string, compute: () => Promise<T>): Promise<T> {
    if (!this.#open) return compute();
    let byKey = this.#derived.get(source);
    if (!byKey) {
      byKey = new Map();
      this.#derived.set(source, byKey);
    }
    let made = byKey.get(key) as Promise<T> | undefined;
    if (!made) {
      made = compute();
      byKey.set(key, made);
    }
    return made;
  }

  /** The readings together are over: a repository read again later (a write's) lists afresh. */
  close(): void {
    this.#open = false;
    this.#listings.clear();
  }
}

/** A reading of one registration among others read together: the readings shared, and when it began. */
export interface ReadTogether {
  shared: SharedReadings;
  since: number;
}
