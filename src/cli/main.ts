import { readFileSync } from "node:fs";
import { type CliCommand, type CliIO, processIO, UsageError } from "./io.js";

interface CommandEntry {
  summary: string;
  /** Other names for the command: porchctl's (`rpackage` for `rpkg`, Porch's pkg/cli/commands/rpkg/rpkgcmd.go). */
  aliases?: readonly string[];
  load: () => Promise<CliCommand>;
}

/**
 * The command groups, one module each, loaded on demand so `porchlight fn render` does not pay for
 * the forge or the GitHub client. The help text is generated from this table.
 */
const COMMANDS: Record<string, CommandEntry> = {
  fn: {
    summary: "render and evaluate functions, as kpt fn",
    load: async () => (await import("./fn.js")).fnCommand,
  },
  pkg: {
    summary: "get, update, diff, init and show packages, as kpt pkg",
    load: async () => (await import("./pkg.js")).pkgCommand,
  },
  rpkg: {
    summary: "package revisions in a GitHub repository, as porchctl rpkg",
    aliases: ["rpackage"],
    load: async () => (await import("./rpkg.js")).rpkgCommand,
  },
  repo: {
    summary: "register package repositories in a namespace, as porchctl repo",
    load: async () => (await import("./repo.js")).repoCommand,
  },
  catalog: {
    summary: "published revisions, channels and upgrade paths",
    load: async () => (await import("./catalog.js")).catalogCommand,
  },
  api: {
    summary: "serve Porch's Kubernetes-style API over GitHub, for kubectl",
    load: async () => (await import("./api.js")).apiCommand,
  },
  serve: {
    summary: "run the GitHub App (on GitHub, or on a seeded embedded forge)",
    load: async () => (await import("./serve.js")).serveCommand,
  },
  action: {
    summary: "the GitHub Actions entry point",
    load: async () => (await import("./action.js")).actionCommand,
  },
  forge: {
    summary: "run or seed the embedded GitHub-compatible forge",
    load: async () => (await import("./forge.js")).forgeCommand,
  },
};

const HELP = `porchlight — kpt package orchestration on GitHub

Usage: porchlight <command> [args]

Commands:
${Object.entries(COMMANDS)
  .map(([name, c]) => `  ${name.padEnd(9)}${c.summary}`)
  .join("\n")}

Run 'porchlight <command> --help' for a command's flags, 'porchlight --version' for the version.
`;

/** The version of the installed package (package.json two directories up, from src/cli and dist/). */
function packageVersion(): string {
  const text = readFileSync(new URL("../../package.json", import.meta.url), "utf8");
  const pkg: unknown = JSON.parse(text);
  const version = typeof pkg === "object" && pkg !== null && "version" in pkg ? pkg.version : undefined;
  return version === undefined || version === null ? "unknown" : String(version);
}

export async function main(argv: string[], io: CliIO = processIO()): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === "--help" || name === "-h" || name === "help") {
    io.stdout(HELP);
    return name ? 0 : 2;
  }
  if (name === "--version" || name === "version") {
    io.stdout(`porchlight ${packageVersion()}\n`);
    return 0;
  }
  const entry = COMMANDS[name] ?? Object.values(COMMANDS).find((c) => c.aliases?.includes(name));
  if (!entry) {
    io.stderr(`porchlight: unknown command "${name}"; known commands: ${Object.keys(COMMANDS).join(", ")}\n`);
    return 2;
  }
  try {
    const command = await entry.load();
    return await command(rest, io);
  } catch (err) {
    if (err instanceof UsageError) {
      io.stderr(`${err.message}\n`);
      return err.exitCode;
    }
    throw err;
  }
}
