/**
 * A problem with a package source the user can act on: an unreachable registry, a refused login, no
 * such tag, a digest that does not match, an archive without a Kptfile. The message says which source
 * and what to do.
 */
export class SourceError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "SourceError";
  }
}

/**
 * A source whose content itself is refused (larger than porchlight reads, an archive entry outside its
 * root, a package over a limit): reading the same bytes again gives the same answer.
 */
export class ContentRefused extends SourceError {
  override name = "ContentRefused";
}
