/**
 * Splits an `exec:` command line into words as kpt does (it uses google/shlex, a POSIX-like
 * splitter without expansion): whitespace separates words; '…' keeps everything literally; "…" keeps
 * everything but lets a backslash take the next character literally; outside quotes a backslash takes
 * the next character literally; a `#` at the start of a word starts a comment up to the end of the line.
 * No variables, globs or redirections: the program gets exactly these words.
 */
export function splitCommandLine(line: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  let i = 0;
  const next = (): string | undefined => line[i++];
  for (;;) {
    const c = next();
    if (c === undefined) break;
    if (word === undefined) {
      if (isSpace(c)) continue;
      if (c === "#") {
        while (i < line.length && line[i] !== "\n") i++;
        continue;
      }
      word = "";
    } else if (isSpace(c)) {
      words.push(word);
      word = undefined;
      continue;
    }
    if (c === "'") {
      const end = line.indexOf("'", i);
      if (end < 0) throw new CommandLineError("EOF found when expecting closing quote");
      word += line.slice(i, end);
      i = end + 1;
    } else if (c === '"') {
      for (;;) {
        const q = next();
        if (q === undefined) throw new CommandLineError("EOF found when expecting closing quote");
        if (q === '"') break;
        if (q === "\\") {
          const escaped = next();
          if (escaped === undefined) throw new CommandLineError("EOF found after escape character");
          word += escaped;
        } else word += q;
      }
    } else if (c === "\\") {
      const escaped = next();
      if (escaped === undefined) throw new CommandLineError("EOF found after escape character");
      word += escaped;
    } else word += c;
  }
  if (word !== undefined) words.push(word);
  return words;
}

export class CommandLineError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "CommandLineError";
  }
}

function isSpace(c: string): boolean {
  return c === " " || c === "\t" || c === "\r" || c === "\n";
}
