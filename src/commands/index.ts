export {
  hasPermission,
  PERMISSION_LEVELS,
  type Permission,
  toPermission,
} from "../api/permission.js";

export {
  authorize,
  forkRuntimeProblem,
} from "./authorize.js";
export { decideCommands } from "./decide.js";
export { formatHelp } from "./help.js";

export { type ParsedCommand, parseCommands } from "./parse.js";
export { COMMANDS, getCommand, knownVerbs } from "./registry.js";
export { ACK_REACTION, formatReply, parseReplyMarker, replyMarker } from "./reply.js";
