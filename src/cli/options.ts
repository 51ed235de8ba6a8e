import { type ParseArgsConfig, parseArgs } from "node:util";
import { UsageError } from "./io.js";

type Options = NonNullable<ParseArgsConfig["options"]>;

/**
 * Parses a command's flags with node's parseArgs (positionals allowed); a flag it does not know, or one
 * missing its value, is a UsageError naming the command and showing its usage.
 */
export function parseCommandArgs<const O extends Options>(
  command: string,
  args: string[],
  options: O,
  usage: string,
) {
  try {
    return parseArgs({ args, options, allowPositionals: true });
  } catch (err) {
    throw new UsageError(`porchlight ${command}: ${(err as Error).message}\n\n${usage}`);
  }
}
