import { describe, expect, it } from "vitest";
import { decideCommands, formatHelp, parseCommands } from "../../src/commands/index.js";

const args = (body: string) =>
  parseCommands(body).map((c) => (c.kind === "command" ? c.args : c.kind === "invalid" ? c.reason : c.kind));

describe("the catalog commands' grammar", () => {
  it.each<[string, unknown]>([
    ["/skip", { verb: "skip" }],
    ["/skip v2", { verb: "skip", revision: 2 }],
    ["/skip basens/v2", { verb: "skip", package: "basens", revision: 2 }],
    ["/remove apps/web/v12", { verb: "remove", package: "apps/web", revision: 12 }],
    ["/rollback", { verb: "rollback" }],
    ["/rollback v1", { verb: "rollback", revision: 1 }],
    ["/deprecate", { verb: "deprecate", target: { kind: "revision" } }],
    [
      "/deprecate v2 leaks its token; use v3",
      { verb: "deprecate", target: { kind: "revision", revision: 2 }, message: "leaks its token; use v3" },
    ],
    [
      "/deprecate basens/v2",
      { verb: "deprecate", target: { kind: "revision", package: "basens", revision: 2 } },
    ],
    [
      "/deprecate channel beta use stable",
      { verb: "deprecate", target: { kind: "channel", channel: "beta" }, message: "use stable" },
    ],
    [
      "/deprecate package moved to basens-ng",
      { verb: "deprecate", target: { kind: "package" }, message: "moved to basens-ng" },
    ],
  ])("reads %s", (body, expected) => {
    expect(args(body)).toEqual([expected]);
  });

  it.each<[string, string]>([
    ["/skip v2 v3", '/skip takes one revision, like `/skip v2` (got "v2 v3")'],
    [
      "/remove 2",
      '/remove takes a published revision, like `/remove v2` on the package\'s pull request or `/remove basens/v2` (its tag) anywhere; "2" is neither',
    ],
    ["/rollback v0", expect.stringContaining('"v0" is neither') as unknown as string],
    [
      "/deprecate use v3 instead",
      '/deprecate takes a revision (`v2`, or its tag `basens/v2`), `channel <name>` or `package`, then the message for its users; "use" is none of these',
    ],
    [
      "/deprecate channel",
      "/deprecate channel needs a channel name, like `/deprecate channel beta use stable instead`",
    ],
  ])("refuses %s, saying how to write it", (body, reason) => {
    expect(args(body)).toEqual([reason]);
  });

  it("needs write permission to skip, deprecate and roll back, and maintain to remove", () => {
    const decide = (permission: "write" | "maintain") =>
      decideCommands(parseCommands("/skip v2\n/deprecate v2 old\n/rollback\n/remove v2"), {
        login: "ana",
        permission,
      }).map((d) =>
        d.kind === "run" ? "run" : d.outcome.kind === "refused" ? d.outcome.reason : d.outcome.kind,
      );
    expect(decide("write")).toEqual([
      "run",
      "run",
      "run",
      "@ana, `/remove` needs maintain permission on this repository; you have write permission.",
    ]);
    expect(decide("maintain")).toEqual(["run", "run", "run", "run"]);
  });

  it("lists them in /help, with where they can be said", () => {
    const help = formatHelp();
    expect(help).toContain("| `/skip [revision]` | write |");
    expect(help).toContain("| `/deprecate [revision|channel <name>|package] [message]` | write |");
    expect(help).toContain("| `/remove [revision]` | maintain |");
    expect(help).toContain("| `/rollback [revision]` | write |");
    expect(help).toContain("also work in an issue");
  });
});
