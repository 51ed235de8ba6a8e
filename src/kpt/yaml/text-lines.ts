/**
 * The offset where the line holding `offset` starts. `String.prototype.lastIndexOf` reads a negative
 * start as 0, so `text.lastIndexOf("\n", offset - 1) + 1` at offset 0 of a text that starts with a
 * line break answers 1, past the offset: every reading of a line's start goes through here.
 */
export function lineStart(text: string, offset: number): number {
  return offset <= 0 ? 0 : text.lastIndexOf("\n", offset - 1) + 1;
}

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
    this.start = lineStart(text, offset);
  }

  up(): string | undefined {
    if (this.end < 0) return undefined;
    const line = this.text.slice(this.start, this.end);
    this.end = this.start - 1;
    this.start = lineStart(this.text, this.end);
    return line;
  }
}
