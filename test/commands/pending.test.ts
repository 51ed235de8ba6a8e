import { describe, expect, it } from "vitest";
import {
  COMMAND_MAX_AGE_MS,
  type CommentRecord,
  MAX_IDS_PER_REPLY,
  pendingCommands,
} from "../../src/commands/pending.js";
import { replyMarker } from "../../src/commands/reply.js";

const NOW = new Date("2026-05-01T12:00:00Z");
const AT = "2026-05-01T11:00:00Z";
const BOT = "porchlight[bot]";

let next = 1;
function comment(author: string, body: string, more: Partial<CommentRecord> = {}): CommentRecord {
  return { id: next++, author, bot: author === BOT, body, createdAt: AT, updatedAt: AT, ...more };
}

describe("the commands still to answer, read from the comments alone", () => {
  it("groups comments with the same commands, per author, in the order written; skips chat and the bot", () => {
    const a1 = comment("bob", "/approve");
    const chat = comment("alice", "looks good");
    const r1 = comment("rita", "/render\n/approve");
    const a2 = comment("alice", "/approve");
    const a3 = comment("bob", "/approve");
    const mine = comment(BOT, "/approve (quoted by the bot)");
    const { groups, edited } = pendingCommands([a1, chat, r1, a2, a3, mine], BOT, NOW);
    expect(edited).toEqual([]);
    expect(
      groups.map((g) => ({
        commands: g.commands,
        ids: g.ids,
        authors: g.authors.map((a) => [a.author, a.first.id, a.ids]),
      })),
    ).toEqual([
      {
        commands: ["/approve"],
        ids: [a1.id, a2.id, a3.id],
        authors: [
          ["bob", a1.id, [a1.id, a3.id]],
          ["alice", a2.id, [a2.id]],
        ],
      },
      { commands: ["/render", "/approve"], ids: [r1.id], authors: [["rita", r1.id, [r1.id]]] },
    ]);
  });

  it("leaves out every comment a reply of the bot names, and trusts no one else's marker", () => {
    const [a, b, c] = [comment("bob", "/render"), comment("bob", "/render"), comment("bob", "/render")];
    const reply = comment(BOT, `${replyMarker([a.id, b.id])}\nRendered.`);
    const forged = comment("mallory", `${replyMarker([c.id])}\nRendered.`);
    const { groups } = pendingCommands([a, b, reply, c, forged], BOT, NOW);
    expect(groups.map((g) => g.ids)).toEqual([[c.id]]);
  });

  it("sets apart a command edited after it was written; ignores one older than the age limit", () => {
    const e = comment("bob", "/approve", { updatedAt: "2026-05-01T11:00:01Z" });
    const old = comment("bob", "/approve", {
      createdAt: new Date(NOW.getTime() - COMMAND_MAX_AGE_MS - 1000).toISOString(),
    });
    const { groups, edited } = pendingCommands([e, old], BOT, NOW);
    expect(edited.map((c) => c.id)).toEqual([e.id]);
    expect(groups).toEqual([]);
  });

  it("starts a new group past the most comments one reply names", () => {
    const many = Array.from({ length: MAX_IDS_PER_REPLY + 2 }, () => comment("bob", "/render"));
    const { groups } = pendingCommands(many, BOT, NOW);
    expect(groups.map((g) => g.ids.length)).toEqual([MAX_IDS_PER_REPLY, 2]);
  });
});
