import { formatHelp } from "../../commands/help.js";
import type { Verb } from "../../commands/registry.js";
import { adopt } from "./adopt.js";
import { approve } from "./approve.js";
import { deprecate, remove, skip } from "./catalog.js";
import { fanout } from "./fanout.js";
import { promote } from "./promote.js";
import { proposeDelete } from "./propose-delete.js";
import { reject } from "./reject.js";
import { render } from "./render.js";
import { rollback } from "./rollback.js";
import { rolloutCommand } from "./rollout.js";
import type { VerbHandler } from "./types.js";
import { update } from "./update.js";

/**
 * The handler of each verb of src/commands/registry.ts, which declares the rest of it (arguments, scope,
 * permission, what it changes): the type asks for one handler per verb there, each taking the
 * arguments its verb's parser returns and what its verb's scope gives.
 */
export const HANDLERS: { readonly [V in Verb]: VerbHandler<V> } = {
  approve,
  reject,
  render,
  update,
  "propose-delete": proposeDelete,
  promote,
  skip,
  deprecate,
  remove,
  rollback,
  fanout,
  adopt,
  // A failed `/rollout` says so in its own words: it changed labels, not the pull request.
  rollout: (ctx, { issue, args }) =>
    rolloutCommand(ctx, { issue, action: args.action }).catch((e: unknown) => ({
      kind: "refused" as const,
      reason: `\`/rollout\` failed: ${e instanceof Error ? e.message : String(e)}. Try again.`,
    })),
  help: async () => ({ kind: "help", text: formatHelp() }),
};
