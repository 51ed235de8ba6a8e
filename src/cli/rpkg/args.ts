import { UsageError } from "../io.js";
import { parseCommandArgs } from "../options.js";

/** The flags a verb accepts: each a value flag, a value flag given any number of times (`list`), or a switch. */
export type FlagSpec = Record<string, "value" | "list" | "switch">;

export interface ParsedArgs {
  positional: string[];
  values: Map<string, string>;
  switches: Set<string>;
  /** The `list` flags' values, in the order given. */
  lists: Map<string, string[]>;
}

/** Short forms, as kubectl and porchctl spell them. */
const SHORT: Record<string, string> = {
  output: "o",
  help: "h",
  verbose: "v",
  selector: "l",
  "label-columns": "L",
  namespace: "n",
};

/**
 * A verb's flags, read by the CLI's one flags layer (options.ts), as maps the verbs look up by name;
 * `command` is what the user ran (`rpkg get`, `repo register`), which a refusal names.
 */
export function parseArgs(
  args: readonly string[],
  spec: FlagSpec,
  usage: string,
  command = "rpkg",
): ParsedArgs {
  const options: Record<string, { type: "string" | "boolean"; short?: string; multiple?: boolean }> = {};
  for (const [name, kind] of Object.entries<"value" | "list" | "switch">({ ...spec, help: "switch" })) {
    options[name] = {
      type: kind === "switch" ? "boolean" : "string",
      ...(kind === "list" ? { multiple: true } : {}),
      ...(SHORT[name] ? { short: SHORT[name] } : {}),
    };
  }
  const { values, positionals } = parseCommandArgs(command, args, options, usage);
  const out: ParsedArgs = {
    positional: positionals,
    values: new Map(),
    switches: new Set(),
    lists: new Map(),
  };
  for (const [name, value] of Object.entries(values)) {
    if (typeof value === "string") out.values.set(name, value);
    else if (value === true) out.switches.add(name);
    else if (Array.isArray(value))
      out.lists.set(
        name,
        value.filter((v) => typeof v === "string"),
      );
  }
  return out;
}

/** A flag's value as a non-negative integer, or undefined when absent. */
export function intFlag(parsed: ParsedArgs, name: string, usage: string): number | undefined {
  const raw = parsed.values.get(name);
  if (raw === undefined) return undefined;
  const text = raw.replace(/^v/, "");
  if (!/^\d+$/.test(text))
    throw new UsageError(`--${name} must be a revision number such as 3, not "${raw}"\n\n${usage}`);
  return Number(text);
}
