import { UsageError } from "./io.js";

/** Flags of `porchlight fn`, parsed as kpt's (cobra) parser reads them. */
export interface ParsedArgs {
  positional: string[];
  /** Everything after `--`. */
  rest: string[];
  values: Map<string, string[]>;
  bools: Set<string>;
}

export interface FlagSpec {
  /** Flags taking a value, with their short forms. */
  values: Record<string, string | undefined>;
  bools: readonly string[];
  /** Short forms of boolean flags (`s` → `save`). */
  boolShorts?: Record<string, string>;
}

export function parseArgs(args: readonly string[], spec: FlagSpec, command: string): ParsedArgs {
  const out: ParsedArgs = { positional: [], rest: [], values: new Map(), bools: new Set() };
  const shortToLong = new Map<string, string>();
  for (const [long, short] of Object.entries(spec.values)) if (short) shortToLong.set(short, long);
  for (const [short, long] of Object.entries(spec.boolShorts ?? {})) shortToLong.set(short, long);
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "--") {
      out.rest = args.slice(i + 1);
      break;
    }
    if (!arg.startsWith("-") || arg === "-") {
      out.positional.push(arg);
      continue;
    }
    const eq = arg.indexOf("=");
    const rawName = eq >= 0 ? arg.slice(0, eq) : arg;
    const inline = eq >= 0 ? arg.slice(eq + 1) : undefined;
    const name = rawName.startsWith("--")
      ? rawName.slice(2)
      : (shortToLong.get(rawName.slice(1)) ?? rawName.slice(1));
    if (spec.bools.includes(name)) {
      if (inline === undefined || inline === "true") out.bools.add(name);
      else if (inline !== "false") throw new UsageError(`invalid argument "${inline}" for "--${name}" flag`);
      else out.bools.add(`no-${name}`);
      continue;
    }
    if (!(name in spec.values)) {
      throw new UsageError(
        `Error: unknown flag: ${rawName}\nRun 'porchlight fn ${command} --help' for usage.`,
      );
    }
    const value = inline ?? args[++i];
    if (value === undefined) throw new UsageError(`Error: flag needs an argument: ${rawName}`);
    const list = out.values.get(name) ?? [];
    list.push(value);
    out.values.set(name, list);
  }
  return out;
}

export function lastValue(p: ParsedArgs, name: string): string | undefined {
  const list = p.values.get(name);
  return list?.[list.length - 1];
}

/** `key=value` pairs (kpt's `--match-labels a=b` and `-- key=value` forms). */
export function keyValues(list: readonly string[], what: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const kv of list) {
    const eq = kv.indexOf("=");
    if (eq <= 0) throw new UsageError(`Error: ${what} must be in key=value format, got "${kv}"`);
    out[kv.slice(0, eq)] = kv.slice(eq + 1);
  }
  return out;
}
