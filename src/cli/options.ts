import { type ParseArgsConfig, parseArgs } from "node:util";
import { UsageError } from "./io.js";

type Options = NonNullable<ParseArgsConfig["options"]>;

/**
 * The CLI's one flags layer, on node's `util.parseArgs`, for every command of porchlight's own (pkg,
 * rpkg, catalog, serve, forge, action): `--flag=value`, `--flag value`, `-o value`, `-ovalue`,
 * switches (`--switch=true|false` too), `-` and anything after `--` positional. A flag the command
 * does not know, a value flag without its value, or a value given to a switch is a UsageError naming
 * the flag, the flags the command knows, and its usage. (`porchlight fn` answers in kpt's words
 * instead: fn-args.ts, the cobra shim over the same parser.)
 */
export function parseCommandArgs<const O extends Options>(
  command: string,
  args: readonly string[],
  options: O,
  usage: string,
) {
  const { tokens } = parseArgs({
    args: [...args],
    options,
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  const spelled = [...args];
  const fail = (message: string) => new UsageError(`porchlight ${command}: ${message}\n\n${usage}`);
  for (const token of tokens) {
    if (token.kind !== "option") continue;
    const option = options[token.name];
    const arg = args[token.index] as string;
    if (!option) {
      const known = Object.keys(options).filter((name) => name !== "help");
      throw fail(
        `unknown flag ${token.rawName}; this command knows ${known.map((name) => `--${name}`).join(", ") || "no flags"}`,
      );
    }
    if (option.type === "boolean") {
      if (token.value === undefined || token.value === "true") {
        if (token.value !== undefined) spelled[token.index] = `--${token.name}`;
        continue;
      }
      if (token.value !== "false") throw fail(`--${token.name} takes no value (it is a switch)`);
      spelled[token.index] = "--";
      continue;
    }
    // A value that looks like a flag is the flag's missing value, as node's strict mode also says.
    if (
      token.value === undefined ||
      (!token.inlineValue && token.value.startsWith("-") && token.value !== "-")
    )
      throw fail(`--${token.name} needs a value`);
    if (token.inlineValue && arg.startsWith(`${token.rawName}=`) && token.rawName.length === 2)
      spelled[token.index] = `${token.rawName}${token.value.slice(1)}`;
  }
  // `--switch=false` was spelled as nothing: drop it, keeping the real terminator.
  const terminator = tokens.find((t) => t.kind === "option-terminator")?.index ?? spelled.length;
  const cleaned = spelled.filter((a, i) => !(a === "--" && i < terminator && args[i] !== "--"));
  return parseArgs({ args: cleaned, options, strict: true, allowPositionals: true });
}
