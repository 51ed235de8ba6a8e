/** The trailer of the bot's render commit: the commit it rendered (its parent). */
const RENDER_TRAILER = "Porchlight-Render";

/** The bot's render commit message; the trailer lets people (and the bot, and the engine) recognise it. */
export function renderCommitMessage(pkg: string, fromSha: string): string {
  return `Render ${pkg}\n\nporchlight ran the package's function pipeline on ${fromSha.slice(0, 7)} and committed the result.\n\n${RENDER_TRAILER}: ${fromSha}\n`;
}

/** The commit a render commit's message says it rendered, or undefined for any other commit. */
export function renderedFrom(message: string): string | undefined {
  for (const line of message.split("\n")) {
    const m = /^Porchlight-Render: ([0-9a-f]{40})\s*$/.exec(line);
    if (m) return m[1];
  }
  return undefined;
}
