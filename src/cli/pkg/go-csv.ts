/**
 * A repeatable list flag as kpt's flag library (pflag's StringSlice) reads each value: one CSV record
 * (Go's encoding/csv, RFC 4180: `"a,b",c` is two fields, `""` inside quotes is a quote, a quoted field
 * may span lines, only the first record counts), an empty value adds nothing. A malformed value is
 * refused with Go's words and position, which kpt prints after `invalid argument …`.
 */
export class CsvError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "CsvError";
  }
}

/** The lines of `text` as Go's reader sees them: each with its `\n` (CRLF read as LF), the last maybe without. */
function csvLines(text: string): string[] {
  const lines = text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
  return lines.map((l) =>
    l.endsWith("\r\n") ? `${l.slice(0, -2)}\n` : l.endsWith("\r") ? l.slice(0, -1) : l,
  );
}

/** Go's column: the byte offset in the line, from 1. */
function column(line: string, index: number): number {
  return Buffer.byteLength(line.slice(0, index)) + 1;
}

function parseError(startLine: number, line: number, col: number, what: string): CsvError {
  const at = startLine === line ? "" : `record on line ${startLine}; `;
  return new CsvError(`${at}parse error on line ${line}, column ${col}: ${what}`);
}

const BARE_QUOTE = 'bare " in non-quoted-field';
const QUOTE = 'extraneous or missing " in quoted-field';

/** The fields of the first CSV record of `value` (none for an empty value). */
export function readCsvRecord(value: string): string[] {
  if (value === "") return [];
  const lines = csvLines(value);
  let n = lines.findIndex((l) => l !== "\n");
  if (n < 0) throw new CsvError("EOF");
  const startLine = n + 1;
  let line = lines[n] as string;
  let pos = 0;
  const fields: string[] = [];
  for (;;) {
    if (line[pos] !== '"') {
      const comma = line.indexOf(",", pos);
      const end = comma >= 0 ? comma : line.endsWith("\n") ? line.length - 1 : line.length;
      const field = line.slice(pos, end);
      const quote = field.indexOf('"');
      if (quote >= 0) throw parseError(startLine, n + 1, column(line, pos + quote), BARE_QUOTE);
      fields.push(field);
      if (comma < 0) return fields;
      pos = comma + 1;
      continue;
    }
    pos += 1;
    let field = "";
    for (;;) {
      const quote = line.indexOf('"', pos);
      if (quote >= 0) {
        field += line.slice(pos, quote);
        const next = line[quote + 1];
        if (next === '"') {
          field += '"';
          pos = quote + 2;
          continue;
        }
        if (next === ",") {
          fields.push(field);
          pos = quote + 2;
          break;
        }
        if (next === undefined || (next === "\n" && quote + 2 === line.length)) {
          fields.push(field);
          return fields;
        }
        throw parseError(startLine, n + 1, column(line, quote), QUOTE);
      }
      field += line.slice(pos);
      if (n + 1 >= lines.length) throw parseError(startLine, n + 1, column(line, line.length), QUOTE);
      n += 1;
      line = lines[n] as string;
      pos = 0;
    }
  }
}
