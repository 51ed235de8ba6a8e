import { describe, expect, it } from "vitest";
import { type ParsedCommand, parseCommands } from "../../src/commands/index.js";
import { codeBlock } from "../util/codeblock.js";

/** A compact view: `verb args` for commands, `?verb→suggestion` for unknown, `!verb: reason` for invalid. */
const view = (commands: ParsedCommand[]) =>
  commands.map((c) => {
    if (c.kind === "unknown") return `?${c.verb}→${c.suggestion ?? "-"}`;
    if (c.kind === "invalid") return `!${c.verb}: ${c.reason}`;
    return `${c.line}: ${JSON.stringify(c.args)}`;
  });

describe("parseCommands: the slash-commands of a comment", () => {
  it.each([
    { name: "a single command", body: "/approve", expected: ['1: {"verb":"approve"}'] },
    {
      name: "several commands in order, around prose",
      body: codeBlock`
        Looks good, but render first.
        /render
        Then:
        /approve
      `,
      expected: ['2: {"verb":"render"}', '4: {"verb":"approve"}'],
    },
    { name: "a verb in capitals", body: "/Approve", expected: ['1: {"verb":"approve"}'] },
    { name: "up to three spaces of indentation", body: "   /approve", expected: ['1: {"verb":"approve"}'] },
    { name: "Windows line endings", body: "hi\r\n/reject\r\n", expected: ['2: {"verb":"reject"}'] },
    { name: "a command in the middle of a line is prose", body: "please /approve this", expected: [] },
    { name: "a path is not a command", body: "/etc/hosts is wrong", expected: [] },
    { name: "inline code is not a command", body: "`/approve` publishes", expected: [] },
    {
      name: "a fenced code block with backticks",
      body: codeBlock`
        \`\`\`
        /approve
        \`\`\`
        /render
      `,
      expected: ['4: {"verb":"render"}'],
    },
    {
      name: "a fenced code block with tildes, closed only by tildes",
      body: codeBlock`
        ~~~yaml
        /approve
        \`\`\`
        /reject
        ~~~
        /fanout
      `,
      expected: ['6: {"verb":"fanout"}'],
    },
    {
      name: "a longer fence needs a closing fence as long",
      body: "````\n/approve\n```\n/reject\n````\n/help\n",
      expected: ['6: {"verb":"help"}'],
    },
    { name: "an unclosed fence hides the rest", body: "```\n/approve\n", expected: [] },
    { name: "an indented code block", body: "text\n\n    /approve\n", expected: [] },
    { name: "a tab-indented line", body: "\t/approve", expected: [] },
    { name: "a quote of someone's command", body: "> /approve\n\nno, wait", expected: [] },
    { name: "a nested quote", body: "> > /approve", expected: [] },
    {
      name: "an HTML comment over lines",
      body: "<!--\n/approve\n-->\n/render",
      expected: ['4: {"verb":"render"}'],
    },
    {
      name: "/update with a revision",
      body: "/update v3",
      expected: ['1: {"verb":"update","target":{"kind":"revision","revision":3}}'],
    },
    {
      name: "/update with a channel",
      body: "/update stable",
      expected: ['1: {"verb":"update","target":{"kind":"channel","channel":"stable"}}'],
    },
    { name: "/update alone", body: "/update", expected: ['1: {"verb":"update","target":{"kind":"latest"}}'] },
    {
      name: "/promote with a channel",
      body: "/promote  beta ",
      expected: ['1: {"verb":"promote","channel":"beta"}'],
    },
    { name: "/propose-delete", body: "/propose-delete", expected: ['1: {"verb":"propose-delete"}'] },
    {
      name: "/propose-delete of one revision, bare or by its tag",
      body: "/propose-delete v2\n/propose-delete basens/v3",
      expected: [
        '1: {"verb":"propose-delete","revision":2}',
        '2: {"verb":"propose-delete","package":"basens","revision":3}',
      ],
    },
    {
      name: "/propose-delete of something not a revision",
      body: "/propose-delete latest",
      expected: [
        '!propose-delete: /propose-delete takes a published revision, like `/propose-delete v2` (a revision of this pull request\'s package) or `/propose-delete basens/v2` (its tag); "latest" is neither',
      ],
    },
    { name: "a misspelt verb, with the one meant", body: "/aprove", expected: ["?aprove→approve"] },
    {
      name: "a misspelt hyphenated verb",
      body: "/propose-delet",
      expected: ["?propose-delet→propose-delete"],
    },
    { name: "an unknown verb with nothing close", body: "/deploy now", expected: ["?deploy→-"] },
    {
      name: "/promote without a channel (the package's default channel)",
      body: "/promote",
      expected: ['1: {"verb":"promote"}'],
    },
    {
      name: "/promote with two channels",
      body: "/promote stable beta",
      expected: ['!promote: /promote takes one channel (got "stable beta")'],
    },
    {
      name: "/update with a bad argument",
      body: "/update V3.0",
      expected: ['!update: /update takes a revision like `v3` or a channel like `stable`; "V3.0" is neither'],
    },
    {
      name: "/approve with arguments",
      body: "/approve please",
      expected: ['!approve: /approve takes no arguments (got "please")'],
    },
  ])("$name", ({ body, expected }) => {
    expect(view(parseCommands(body))).toEqual(expected);
  });

  it("checks channel arguments against the repository's channels", () => {
    const commands = parseCommands("/promote stabel\n/update edge\n/promote beta", {
      channels: ["stable", "beta"],
    });
    expect(view(commands)).toEqual([
      "!promote: there is no channel `stabel` — did you mean `stable`? (this repository's channels are `stable`, `beta`)",
      "!update: there is no channel `edge` (this repository's channels are `stable`, `beta`)",
      '3: {"verb":"promote","channel":"beta"}',
    ]);
  });

  it("keeps the line as written for the reply", () => {
    const [command] = parseCommands("thanks!\n  /update   stable  ");
    expect(command).toMatchObject({ line: 2, text: "/update   stable" });
  });
});
