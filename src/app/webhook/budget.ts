/**
 * Bytes of webhook bodies held at once, across all requests: each body is capped on its own, and this
 * caps their sum, so many slow uploads at once (which cannot be told from GitHub's until their
 * signature is checked, that is, until they are read) cannot take the process's memory. One per server.
 */
export class ByteBudget {
  #used = 0;

  constructor(readonly total: number) {}

  /** Bytes held now. */
  get used(): number {
    return this.#used;
  }

  /** Takes `n` bytes if they fit, and says whether they did. */
  take(n: number): boolean {
    if (this.#used + n > this.total) return false;
    this.#used += n;
    return true;
  }

  give(n: number): void {
    this.#used = Math.max(0, this.#used - n);
  }
}
