import type { Router } from "../router.js";
import { appRoutes } from "./app.js";
import { contentRoutes } from "./contents.js";
import { objectRoutes } from "./objects.js";
import { refRoutes } from "./refs.js";
import { repoRoutes } from "./repos.js";

/** Every REST area of the forge, one module each. */
export function registerRoutes(r: Router): void {
  appRoutes(r);
  repoRoutes(r);
  refRoutes(r);
  objectRoutes(r);
  contentRoutes(r);
}
