export {
  hasPermission,
  isPermission,
  PERMISSION_LEVELS,
  type Permission,
  toPermission,
} from "../api/permission.js";
export type { CommandArgs, UpdateTarget, Verb } from "./args.js";
export {
  type Actor,
  type Authorized,
  authorize,
  forkNotDraft,
  forkRuntimeProblem,
  type Refusal,
} from "./authorize.js";
export { type CommandDecision, decideCommands } from "./decide.js";
export { formatHelp } from "./help.js";
export { plainLines } from "./markdown-lines.js";
export { type CommandOutcome, formatOutcome } from "./outcome.js";
export { type ParsedCommand, type ParseOptions, parseCommands } from "./parse.js";
export { COMMANDS, type CommandSpec, findCommand, getCommand, knownVerbs } from "./registry.js";
export { ACK_REACTION, formatReply, parseReplyMarker, type ReplyEntry, replyMarker } from "./reply.js";
