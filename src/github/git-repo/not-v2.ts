/** How long a server that did not answer in protocol v2 is left to git, in case it was a passing fault. */
const V2_RETRY_MS = 10 * 60_000;

/**
 * Servers whose answer the fetch or the refs' listing in process did not understand (one that speaks
 * protocol v0 only, a proxy that drops the Git-Protocol header), by URL, until when git is asked
 * directly: a failed try costs one request per push. Asked again after V2_RETRY_MS. Each job makes its
 * own GitRepo, so the app keeps one of these for its life, in its GitObjectCache, and a request lost on
 * every push is what it spares; a GitRepo given none keeps its own.
 */
export class NotV2Servers {
  private readonly until = new Map<string, number>();

  /** Whether `url` did not answer in v2 within V2_RETRY_MS: git is asked. */
  has(url: string): boolean {
    return (this.until.get(url) ?? 0) > Date.now();
  }

  /** `url` did not answer in v2 just now. */
  add(url: string): void {
    this.until.set(url, Date.now() + V2_RETRY_MS);
  }
}
