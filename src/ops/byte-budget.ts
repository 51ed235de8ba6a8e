/**
 * Bytes of request bodies held at once, across all requests of one server (the webhook edge's, Porch's
 * API's): each body is capped on its own, and this caps their sum, so many slow uploads at once (a
 * webhook cannot be told from GitHub's until its signature is checked, that is, until it is read) cannot
 * take the process's memory. One address may hold `perSource` of it at most, so one sender cannot take
 * it all.
 */
export class ByteBudget {
  #used = 0;
  readonly #bySource = new Map<string, number>();

  constructor(
    readonly total: number,
    /** The most one sender (its address) may hold at once; default the whole budget. */
    readonly perSource = total,
  ) {}

  /** Bytes held now. */
  get used(): number {
    return this.#used;
  }

  /** Whether `n` more bytes from `source` would fit now. */
  fits(n: number, source = ""): boolean {
    return this.#used + n <= this.total && (this.#bySource.get(source) ?? 0) + n <= this.perSource;
  }

  /** Takes `n` bytes for `source` if they fit, and says whether they did. */
  take(n: number, source = ""): boolean {
    if (!this.fits(n, source)) return false;
    this.#used += n;
    this.#bySource.set(source, (this.#bySource.get(source) ?? 0) + n);
    return true;
  }

  give(n: number, source = ""): void {
    this.#used = Math.max(0, this.#used - n);
    const left = (this.#bySource.get(source) ?? 0) - n;
    if (left > 0) this.#bySource.set(source, left);
    else this.#bySource.delete(source);
  }
}
