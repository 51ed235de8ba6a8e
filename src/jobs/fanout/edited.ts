import { z } from "zod";
/**
 * A fan-out pull request someone else pushed commits to: fan-out stops updating it, and says so — label
 * `porchlight/edited` and a line in its body. `/update` hands it back: the body records the head it was
 * handed back at (`<!-- porchlight:takeover {"sha":…} -->`), and only commits by others after that head
 * hold it again. Both are facts on the pull request, read back by the next run.
 */

export const EDITED_LABEL = "porchlight/edited";

const EDITED_LINE_MARKER = "<!-- porchlight:edited -->";
const EDITED_LINE = `${EDITED_LINE_MARKER}\n✋ **Fan-out no longer updates this pull request**: someone else pushed commits to it, and fan-out never overwrites them. Merge or close it, or comment \`/update\` to hand it back to fan-out (its next update replaces those changes).\n`;
const TAKEOVER_RE = /<!-- porchlight:takeover (\{[^>]*?\}) -->\n?/;

/** The takeover marker as read back from a pull request body (people edit it). */
const takeoverSchema = z.object({ sha: z.string().regex(/^[0-9a-f]{40}$/) });

/** The head a person handed the pull request back to fan-out at (`/update`), if any. */
export function parseTakeover(body: string | null | undefined): string | undefined {
  const json = TAKEOVER_RE.exec(body ?? "")?.[1];
  if (json === undefined) return undefined;
  try {
    const marker = takeoverSchema.safeParse(JSON.parse(json));
    return marker.success ? marker.data.sha : undefined;
  } catch {
    return undefined;
  }
}

/** The body with the takeover marker for `sha` (replacing an older one), or without one. */
export function withTakeover(body: string, sha: string | undefined): string {
  const clean = body.replace(TAKEOVER_RE, "").replace(/\n+$/, "\n");
  return sha ? `${clean}<!-- porchlight:takeover ${JSON.stringify({ sha })} -->\n` : clean;
}

/** The body with the "fan-out stopped" line, once. */
export function withEditedLine(body: string): string {
  return body.includes(EDITED_LINE_MARKER) ? body : `${body.replace(/\n+$/, "\n")}\n${EDITED_LINE}`;
}

/** The body without the "fan-out stopped" line. */
export function withoutEditedLine(body: string): string {
  const i = body.indexOf(EDITED_LINE_MARKER);
  return i < 0 ? body : `${body.slice(0, i).replace(/\n+$/, "\n")}${body.slice(i + EDITED_LINE.length)}`;
}
