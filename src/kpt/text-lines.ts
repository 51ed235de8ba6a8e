/**
 * Reads `text` line by line upwards from `offset` (the first line read is cut at `offset`): each line
 * without its line break (a CRLF line keeps its `\r`), until the text's first line has been read.
 */
export class LinesUp {
  private start: number;
  private end: number;

  constructor(
    private readonly text: string,
    offset: number,
  ) {
    this.end = offset;
    this.start = text.lastIndexOf("\n", offset - 1) + 1;
  }

  up(): string | undefined {
    if (this.end < 0) return undefined;
    const line = this.text.slice(this.start, this.end);
    this.end = this.start - 1;
    this.start = this.end < 0 ? 0 : this.text.lastIndexOf("\n", this.end - 1) + 1;
    return line;
  }
}
