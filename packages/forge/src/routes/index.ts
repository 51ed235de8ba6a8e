import type { Router } from "../router.js";
import { appRoutes } from "./app.js";
import { checkRoutes } from "./checks.js";
import { contentRoutes } from "./contents.js";
import { forkRoutes } from "./forks.js";
import { issueRoutes } from "./issues.js";
import { labelRoutes } from "./labels.js";
import { objectRoutes } from "./objects.js";
import { pullRoutes } from "./pulls.js";
import { reactionRoutes } from "./reactions.js";
import { refRoutes } from "./refs.js";
import { repoRoutes } from "./repos.js";
import { reviewRoutes } from "./reviews.js";
import { statusRoutes } from "./statuses.js";
import { treeRoutes } from "./trees.js";
import { userRoutes } from "./users.js";

/**
 * Every REST area of the forge, one module each. Order matters where templates overlap: the
 * `/commits/{ref}/…` routes come before `objectRoutes`' catch-all `/commits/{ref+}`, and
 * `/issues/comments/…` before `/issues/{issue_number}/…`.
 */
export function registerRoutes(r: Router): void {
  appRoutes(r);
  repoRoutes(r);
  forkRoutes(r);
  refRoutes(r);
  contentRoutes(r);
  pullRoutes(r);
  reviewRoutes(r);
  reactionRoutes(r);
  issueRoutes(r);
  labelRoutes(r);
  checkRoutes(r);
  statusRoutes(r);
  userRoutes(r);
  treeRoutes(r);
  objectRoutes(r);
}
