import { type Actor, authorize } from "./authorize.js";
import type { CommandOutcome } from "./outcome.js";
import type { ParsedCommand } from "./parse.js";
import { type CommandArgs, type CommandSpec, knownVerbs } from "./registry.js";

/** For each command of a comment: run it, or answer at once (a refusal, a mistake). */
export type CommandDecision =
  | { kind: "run"; text: string; spec: CommandSpec; args: CommandArgs }
  | { kind: "answer"; text: string; outcome: CommandOutcome };

/**
 * What to do with each command of a comment, in order, before anything touches GitHub: unknown verbs and
 * bad arguments are answered with what was wrong, commands the author may not run with the permission
 * they need. The rest are for src/jobs/commands to carry out, each by its verb's handler.
 */
export function decideCommands(commands: readonly ParsedCommand[], actor: Actor): CommandDecision[] {
  return commands.map((c): CommandDecision => {
    if (c.kind === "unknown") {
      const outcome: CommandOutcome = { kind: "unknown", verb: c.verb, known: knownVerbs() };
      if (c.suggestion) outcome.suggestion = c.suggestion;
      return { kind: "answer", text: c.text, outcome };
    }
    if (c.kind === "invalid")
      return { kind: "answer", text: c.text, outcome: { kind: "invalid", reason: c.reason } };
    const allowed = authorize(actor, `\`/${c.spec.verb}\``, c.spec.permission);
    if (!allowed.ok)
      return { kind: "answer", text: c.text, outcome: { kind: "refused", reason: allowed.reason } };
    return { kind: "run", text: c.text, spec: c.spec, args: c.args };
  });
}
