import { parseArgs as nodeParseArgs, type ParseArgsConfig } from "node:util";
import { UsageError } from "./io.js";

/**
 * The cobra-compatible shim over the CLI's one flags layer (node's `util.parseArgs`, see options.ts):
 * `porchlight fn` must answer a bad flag with kpt's own words (`error: unknown flag: --x`, exit 1), so
 * here node's tokens are read as pflag reads them — a value flag takes the next argument whatever it
 * looks like, a boolean takes Go's ParseBool spellings after `=`, a flag may repeat — and only the
 * error texts are cobra's. `pkg init` and `pkg tree`, kpt's twins too, use it as well; every other
 * command uses `parseCommandArgs`.
 */
export interface ParsedArgs {
  positional: string[];
  /** Everything after `--`. */
  rest: string[];
  values: Map<string, string[]>;
  /** Booleans given as true; `no-NAME` for one given as `--NAME=false`. */
  bools: Set<string>;
}

export interface FlagSpec {
  /** Flags taking a value, with their short forms. */
  values: Record<string, string | undefined>;
  bools: readonly string[];
  /** Short forms of boolean flags (`s` → `save`). */
  boolShorts?: Record<string, string>;
}

const TRUE = new Set(["1", "t", "T", "true", "TRUE", "True"]);
const FALSE = new Set(["0", "f", "F", "false", "FALSE", "False"]);

export function parseArgs(args: readonly string[], spec: FlagSpec, _command: string): ParsedArgs {
  const options: NonNullable<ParseArgsConfig["options"]> = {};
  for (const [long, short] of Object.entries(spec.values)) {
    options[long] = { type: "string", multiple: true, ...(short ? { short } : {}) };
  }
  const boolShorts = new Map(Object.entries(spec.boolShorts ?? {}).map(([s, l]) => [l, s]));
  for (const long of spec.bools) {
    const short = boolShorts.get(long) ?? (long === "help" ? "h" : undefined);
    options[long] = { type: "boolean", ...(short ? { short } : {}) };
  }
  // node reads `-s=false` as a group of shorts; pflag as `--save=false`.
  const longOf = new Map(Object.entries(options).flatMap(([l, o]) => (o.short ? [[o.short, l]] : [])));
  const spelled = args.map((a) => {
    const m = /^-([^-])=(.*)$/s.exec(a);
    const long = m && longOf.get(m[1] as string);
    return m && long && options[long]?.type === "boolean" ? `--${long}=${m[2]}` : a;
  });
  const { tokens } = nodeParseArgs({
    args: spelled,
    options,
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  const out: ParsedArgs = { positional: [], rest: [], values: new Map(), bools: new Set() };
  let afterTerminator = false;
  let lastIndex = -1;
  let groupOffset = 0;
  for (const token of tokens) {
    if (token.kind === "option-terminator") {
      afterTerminator = true;
      continue;
    }
    if (token.kind === "positional") {
      (afterTerminator ? out.rest : out.positional).push(token.value);
      continue;
    }
    const arg = args[token.index] as string;
    const isShort = !token.rawName.startsWith("--");
    // pflag names a short flag by what is left of its group: `-sx` fails as "'x' in -x".
    groupOffset = token.index === lastIndex ? groupOffset + 1 : 0;
    lastIndex = token.index;
    const where = isShort ? `'${token.rawName.slice(1)}' in -${arg.slice(1 + groupOffset)}` : token.rawName;
    const option = options[token.name];
    if (!option) {
      throw kptError(isShort ? `unknown shorthand flag: ${where}` : `unknown flag: ${token.rawName}`);
    }
    if (option.type === "boolean") {
      const inline = token.value;
      if (inline === undefined || TRUE.has(inline)) out.bools.add(token.name);
      else if (FALSE.has(inline)) out.bools.add(`no-${token.name}`);
      else
        throw kptError(
          `invalid argument "${inline}" for "${option.short ? `-${option.short}, ` : ""}--${token.name}" flag: strconv.ParseBool: parsing "${inline}": invalid syntax`,
        );
      continue;
    }
    if (token.value === undefined) throw kptError(`flag needs an argument: ${where}`);
    // `-o=stdout` is pflag's spelling of `-o stdout`.
    const value =
      isShort && token.inlineValue && arg.startsWith(`${token.rawName}=`)
        ? token.value.slice(1)
        : token.value;
    const list = out.values.get(token.name) ?? [];
    list.push(value);
    out.values.set(token.name, list);
  }
  return out;
}

/** kpt prints a flag error as cobra returns it, `error: …`, and exits 1. */
function kptError(message: string): UsageError {
  return new UsageError(`error: ${message}`, 1);
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
