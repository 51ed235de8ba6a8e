import { readFileSync } from "node:fs";
import { parse } from "yaml";
import { execFile } from "../../../src/fn/starlark/interp.js";
import type { DialectOptions } from "../../../src/fn/starlark/resolve.js";
import { fromBytes } from "../../../src/fn/starlark/utf8.js";
import { repr } from "../../../src/fn/starlark/values/repr.js";

/** Runs `src` and returns repr(x), or the error message (syntax errors keep their file:line:col prefix). */
export function evalX(src: string, dialect: DialectOptions = {}): string {
  try {
    const { globals } = execFile(src, new Map(), { name: "t.star", dialect });
    const x = globals.get("x");
    return x === undefined ? "<no x>" : fromBytes(repr(x));
  } catch (e) {
    return `error: ${(e as Error).message}`;
  }
}

export const KPT_DIALECT: DialectOptions = { set: true, recursion: true, globalReassign: true };

/** A case of a table in cases/: its name (the test's), the script, and what it must give. */
export type StarlarkCase = [name: string, src: string, want: string];

const CASE_FIELDS = ["name", "src", "want"] as const;

function readCases(file: string, where: string, list: unknown): StarlarkCase[] {
  if (!Array.isArray(list)) throw new Error(`${file}: ${where} is not a list of cases`);
  return list.map((c: unknown, i) => {
    const fields = c !== null && typeof c === "object" ? (c as Record<string, unknown>) : {};
    const missing = CASE_FIELDS.find((k) => typeof fields[k] !== "string");
    if (missing !== undefined) throw new Error(`${file}: ${where}[${i}] has no string ${missing}`);
    const extra = Object.keys(fields).find((k) => !(CASE_FIELDS as readonly string[]).includes(k));
    if (extra !== undefined)
      throw new Error(`${file}: ${where}[${i}] has ${extra}, not one of name, src, want`);
    return [fields.name, fields.src, fields.want] as StarlarkCase;
  });
}

function readTable(file: string): unknown {
  return parse(readFileSync(new URL(`cases/${file}`, import.meta.url), "utf8"));
}

/** The cases of `cases/<file>`, a YAML list of {name, src, want}, as [name, src, want]. */
export function starlarkCases(file: string): StarlarkCase[] {
  return readCases(file, "the file", readTable(file));
}

/** The sections of `cases/<file>`, a YAML mapping of a section's name to its list of {name, src, want}. */
export function starlarkSections(file: string): [section: string, cases: StarlarkCase[]][] {
  const table = readTable(file);
  if (table === null || typeof table !== "object" || Array.isArray(table)) {
    throw new Error(`${file}: not a mapping of sections`);
  }
  return Object.entries(table).map(([section, list]) => [section, readCases(file, section, list)]);
}
