import { COMMANDS, type CommandSpec } from "./registry.js";

/** The `/help` answer, generated from the registry so it never lists a verb that does not exist. */
export function formatHelp(registry: readonly CommandSpec[] = COMMANDS): string {
  const rows = registry.map((c) => {
    const usage = c.usage ? `/${c.verb} ${c.usage}` : `/${c.verb}`;
    return `| \`${usage}\` | ${c.permission} | ${c.help} |`;
  });
  return [
    "porchlight reads these commands at the start of a line in a pull request comment, in order:",
    "",
    "| Command | Needs | What it does |",
    "|---|---|---|",
    ...rows,
    "",
    "Commands in code blocks and quotes are ignored. `/skip`, `/deprecate`, `/remove` and `/rollback` also work in an issue (the fan-out dashboard, say) when the revision is named by its tag, like `/skip basens/v2`.",
  ].join("\n");
}
