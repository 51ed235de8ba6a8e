import { type CliCommand, type CliIO, processIO, UsageError } from "./io.js";

/**
 * The command groups, one module each, loaded on demand so `porchlight fn render` does not pay for
 * the forge or the GitHub client. Add a group here and in HELP.
 */
const COMMANDS: Record<string, () => Promise<CliCommand>> = {
  fn: async () => (await import("./fn.js")).fnCommand,
  pkg: async () => (await import("./pkg.js")).pkgCommand,
  catalog: async () => (await import("./catalog.js")).catalogCommand,
  rpkg: async () => (await import("./rpkg.js")).rpkgCommand,
  forge: async () => (await import("./forge.js")).forgeCommand,
  serve: async () => (await import("./serve.js")).serveCommand,
  action: async () => (await import("./action.js")).actionCommand,
};

const HELP = `porchlight — kpt package orchestration on GitHub

Usage: porchlight <command> [args]

Commands:
${Object.keys(COMMANDS)
  .map((c) => `  ${c}`)
  .join("\n")}

Run 'porchlight <command> --help' for a command's flags.
`;

export async function main(argv: string[], io: CliIO = processIO()): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === "--help" || name === "-h" || name === "help") {
    io.stdout(HELP);
    return name ? 0 : 2;
  }
  const load = COMMANDS[name];
  if (!load) {
    io.stderr(`porchlight: unknown command "${name}"; known commands: ${Object.keys(COMMANDS).join(", ")}\n`);
    return 2;
  }
  try {
    const command = await load();
    return await command(rest, io);
  } catch (err) {
    if (err instanceof UsageError) {
      io.stderr(`${err.message}\n`);
      return err.exitCode;
    }
    throw err;
  }
}
