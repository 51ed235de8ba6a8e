import { COMMANDS } from "./registry.js";

/** `a`, `a and b`, `a, b and c`. */
function listed(words: readonly string[]): string {
  return words.length < 2 ? words.join("") : `${words.slice(0, -1).join(", ")} and ${words.at(-1)}`;
}

/** The `/help` answer, generated from the registry so it never lists a verb that does not exist. */
export function formatHelp(): string {
  const rows = COMMANDS.map((c) => {
    const usage = c.usage ? `/${c.verb} ${c.usage}` : `/${c.verb}`;
    return `| \`${usage}\` | ${c.permission} | ${c.help} |`;
  });
  const inIssues = COMMANDS.filter((c) => c.scope === "pull-request-or-issue").map((c) => `\`/${c.verb}\``);
  return [
    "porchlight reads these commands at the start of a line in a pull request comment, in order:",
    "",
    "| Command | Needs | What it does |",
    "|---|---|---|",
    ...rows,
    "",
    `Commands in code blocks and quotes are ignored. ${listed(inIssues)} also work in an issue (the fan-out dashboard, say) when the revision is named by its tag, like \`/skip basens/v2\`.`,
  ].join("\n");
}
