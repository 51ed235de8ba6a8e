import { UsageError } from "../io.js";

/** The flags a verb accepts: each a value flag or a switch. */
export type FlagSpec = Record<string, "value" | "switch">;

export interface ParsedArgs {
  positional: string[];
  values: Map<string, string>;
  switches: Set<string>;
}

/** Short forms, as kubectl and porchctl spell them. */
const SHORT: Record<string, string> = { o: "output", h: "help" };

/**
 * Reads `--flag=value`, `--flag value`, `-o yaml`, `-oyaml` and switches; `-` alone and anything not
 * starting with `-` are positional; `--` ends the flags. An unknown flag is a usage error naming the
 * flags the verb knows.
 */
export function parseArgs(args: readonly string[], spec: FlagSpec, usage: string): ParsedArgs {
  const out: ParsedArgs = { positional: [], values: new Map(), switches: new Set() };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === "--") {
      out.positional.push(...args.slice(i + 1));
      break;
    }
    if (arg === "-" || !arg.startsWith("-")) {
      out.positional.push(arg);
      continue;
    }
    let name: string;
    let inline: string | undefined;
    if (arg.startsWith("--")) {
      const eq = arg.indexOf("=");
      name = eq >= 0 ? arg.slice(2, eq) : arg.slice(2);
      inline = eq >= 0 ? arg.slice(eq + 1) : undefined;
    } else {
      const long = SHORT[arg[1] ?? ""];
      if (!long) throw unknown(arg, spec, usage);
      name = long;
      const rest = arg.slice(2).replace(/^=/, "");
      inline = rest === "" ? undefined : rest;
    }
    const kind = name === "help" ? "switch" : spec[name];
    if (!kind) throw unknown(arg, spec, usage);
    if (kind === "switch") {
      if (inline !== undefined && inline !== "true") {
        if (inline === "false") continue;
        throw new UsageError(`--${name} takes no value\n\n${usage}`);
      }
      out.switches.add(name);
      continue;
    }
    const value = inline ?? args[++i];
    if (value === undefined || (inline === undefined && value.startsWith("--"))) {
      throw new UsageError(`--${name} needs a value\n\n${usage}`);
    }
    out.values.set(name, value);
  }
  return out;
}

function unknown(arg: string, spec: FlagSpec, usage: string): UsageError {
  const known = Object.keys(spec)
    .map((f) => `--${f}`)
    .join(", ");
  return new UsageError(`unknown flag ${arg}; this command knows ${known || "no flags"}\n\n${usage}`);
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
