import { describe, expect, it } from "vitest";
import {
  ACK_REACTION,
  COMMANDS,
  decideCommands,
  formatHelp,
  formatReply,
  getCommand,
  knownVerbs,
  parseCommands,
  parseReplyMarker,
  replyMarker,
} from "../../src/commands/index.js";

describe("the verb registry", () => {
  it("holds the verbs of the design, each with help and a permission", () => {
    expect(knownVerbs()).toEqual([
      "approve",
      "reject",
      "render",
      "update",
      "propose-delete",
      "promote",
      "skip",
      "deprecate",
      "remove",
      "rollback",
      "fanout",
      "adopt",
      "rollout",
      "help",
    ]);
    for (const spec of COMMANDS) {
      expect(spec.help).not.toBe("");
      expect(getCommand(spec.verb)).toBe(spec);
    }
  });

  it("names the known verbs when code asks for one that does not exist", () => {
    expect(() => getCommand("deploy")).toThrow(
      'unknown slash-command "deploy"; known commands: approve, reject, render, update, propose-delete, promote, skip, deprecate, remove, rollback, fanout, adopt, rollout, help',
    );
  });

  it("generates /help from the table", () => {
    const help = formatHelp();
    for (const spec of COMMANDS) expect(help).toContain(`/${spec.verb}`);
    expect(help).toContain("| `/update [revision|channel]` | write |");
    expect(help).toContain("| `/promote [channel]` | write |");
  });
});

describe("decideCommands and the reply", () => {
  const body = "/aprove\n/render\n/promote stable beta\n/help\n/deploy";

  it("runs what the author may run and answers the rest at once", () => {
    const decisions = decideCommands(parseCommands(body), { login: "ana", permission: "write" });
    expect(
      decisions.map((d) => (d.kind === "run" ? `run ${d.spec.verb}` : `answer ${d.outcome.kind}`)),
    ).toEqual(["answer unknown", "run render", "answer invalid", "run help", "answer unknown"]);
  });

  it("refuses commands the author lacks permission for, but still helps", () => {
    const decisions = decideCommands(parseCommands("/approve\n/help"), { login: "bo", permission: "read" });
    expect(decisions[0]).toMatchObject({
      kind: "answer",
      outcome: {
        kind: "refused",
        reason: "@bo, `/approve` needs write permission on this repository; you have read permission.",
      },
    });
    expect(decisions[1]).toMatchObject({ kind: "run", spec: { verb: "help" } });
  });

  it("answers a single command in one sentence, with a marker naming the comment", () => {
    const [decision] = decideCommands(parseCommands("/aprove"), { login: "ana", permission: "admin" });
    if (decision?.kind !== "answer") throw new Error("expected an answer");
    const reply = formatReply(4242, [{ command: decision.text, outcome: decision.outcome }]);
    expect(reply).toBe(
      "<!-- porchlight:reply comment=4242 -->\nUnknown command `/aprove` — did you mean `/approve`?\n",
    );
    expect(parseReplyMarker(reply)).toEqual([4242]);
    expect(parseReplyMarker("a human comment")).toEqual([]);
    expect(parseReplyMarker(`${replyMarker([3, 14, 159])}\n…`)).toEqual([3, 14, 159]);
  });

  it("answers several commands one line each, in order", () => {
    const reply = formatReply(7, [
      { command: "/render", outcome: { kind: "rendered" } },
      {
        command: "/approve",
        outcome: {
          kind: "published",
          package: "net/dns",
          revision: 4,
          tag: "net/dns/v4",
          mergeSha: "0123456789abcdef",
        },
      },
      { command: "/deploy", outcome: { kind: "unknown", verb: "deploy", known: ["approve", "help"] } },
    ]);
    expect(reply).toBe(
      [
        "<!-- porchlight:reply comment=7 -->",
        "- `/render`: Rendered the package: the committed files are already up to date.",
        "- `/approve`: Published **net/dns** as `net/dns/v4` (revision 4, merge 0123456).",
        "- `/deploy`: Unknown command `/deploy`; known commands: `/approve`, `/help`",
        "",
      ].join("\n"),
    );
  });

  it("acknowledges with the eyes reaction", () => {
    expect(ACK_REACTION).toBe("eyes");
  });
});
