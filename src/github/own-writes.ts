import { OwnCheckRuns } from "./own-check-runs.js";
import { OwnComments } from "./own-comments.js";

/**
 * What the app wrote to GitHub and listed there, known for the process's life so that asking again is
 * not needed: its own check runs of each commit (own-check-runs.ts) and its own marked comments of each
 * pull request (own-comments.ts). One process only: a fleet's replicas each write, so server.ts gives
 * none there.
 */
export interface OwnWrites {
  runs: OwnCheckRuns;
  comments: OwnComments;
}

export function ownWrites(): OwnWrites {
  return { runs: new OwnCheckRuns(), comments: new OwnComments() };
}
