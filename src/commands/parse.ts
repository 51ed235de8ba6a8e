import { nearestName } from "../config/nearest-name.js";
import { plainLines } from "./markdown-lines.js";
import { COMMANDS, type CommandArgs, type CommandSpec, knownVerbs, type Verb } from "./registry.js";

/** One slash-command line of a comment, read. `line` is 1-based, `text` the line as written. */
export type ParsedCommand =
  | { kind: "command"; line: number; text: string; spec: CommandSpec; args: CommandArgs }
  | { kind: "unknown"; line: number; text: string; verb: string; suggestion?: string }
  | { kind: "invalid"; line: number; text: string; verb: Verb; reason: string };

export interface ParseOptions {
  /** The repository's channels: a channel argument outside them is refused, with the nearest one. */
  channels?: readonly string[];
}

const COMMAND_LINE = /^ {0,3}\/([A-Za-z][A-Za-z0-9-]*)(?=\s|$)(.*)$/;

/**
 * The slash-commands of a comment, in order: each line that starts with `/` and a word. Lines in code
 * blocks, quotes and HTML comments are not read; `/path/to/file` is not a command (the word must end at
 * a space or the line's end). An unknown word comes back as `unknown` with the nearest known verb.
 */
export function parseCommands(body: string, options: ParseOptions = {}): ParsedCommand[] {
  const commands: ParsedCommand[] = [];
  for (const { line, text } of plainLines(body)) {
    const match = COMMAND_LINE.exec(text);
    if (!match?.[1]) continue;
    const verb = match[1].toLowerCase();
    const trimmed = text.trim();
    const spec = COMMANDS.find((c) => c.verb === verb);
    if (!spec) {
      const suggestion = nearestName(verb, knownVerbs());
      commands.push(
        suggestion
          ? { kind: "unknown", line, text: trimmed, verb, suggestion }
          : { kind: "unknown", line, text: trimmed, verb },
      );
      continue;
    }
    const args = (match[2] ?? "")
      .trim()
      .split(/\s+/)
      .filter((a) => a !== "");
    const result = spec.parseArgs(args);
    if (!result.ok) {
      commands.push({ kind: "invalid", line, text: trimmed, verb: spec.verb, reason: result.reason });
      continue;
    }
    const channelProblem = options.channels ? unknownChannel(result.value, options.channels) : undefined;
    if (channelProblem) {
      commands.push({ kind: "invalid", line, text: trimmed, verb: spec.verb, reason: channelProblem });
      continue;
    }
    commands.push({ kind: "command", line, text: trimmed, spec, args: result.value });
  }
  return commands;
}

function unknownChannel(args: CommandArgs, channels: readonly string[]): string | undefined {
  const channel =
    args.verb === "promote"
      ? args.channel
      : args.verb === "update" && args.target.kind === "channel"
        ? args.target.channel
        : undefined;
  if (channel === undefined || channels.includes(channel)) return undefined;
  const guess = nearestName(channel, channels);
  const known = `this repository's channels are ${channels.map((c) => `\`${c}\``).join(", ")}`;
  return `there is no channel \`${channel}\`${guess ? ` — did you mean \`${guess}\`?` : ""} (${known})`;
}
