import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { UsageError } from "./io.js";
import { writePrivateFileSync } from "./private-file.js";

/**
 * What `serve`, `forge` and `api` remember in a data folder besides the forge's own state: the port the
 * forge and Porch's API listened on, so that clones, remotes and kubeconfigs keep working after a restart.
 */
interface ServeState {
  forgePort?: number;
  apiPort?: number;
}

type PortOf = keyof ServeState;

export const STATE_FILE = "serve.json";

/** The state file's object, or undefined when there is none (`command` names who asks). */
function readState(dataDir: string, command: string): Record<string, unknown> | undefined {
  const file = join(dataDir, STATE_FILE);
  if (!existsSync(file)) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, "utf8"));
  } catch (err) {
    throw new UsageError(
      `porchlight ${command}: ${file} is not valid JSON (${(err as Error).message}); fix it or delete it (the forge then picks a new port)`,
    );
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
    throw new UsageError(
      `porchlight ${command}: ${file} is not a JSON object; fix it or delete it (the forge then picks a new port)`,
    );
  return { ...parsed };
}

/** The port `of` (the forge, Porch's API) of `dataDir` listened on last time, or undefined. */
export function rememberedPort(dataDir: string, of: PortOf, command: string): number | undefined {
  // A port that is no whole number is forgotten, as a missing one: a new port is picked.
  const port = readState(dataDir, command)?.[of];
  return typeof port === "number" && Number.isInteger(port) ? port : undefined;
}

/** The port the forge of `dataDir` listened on last time, or undefined (`command` names who asks). */
export function rememberedForgePort(dataDir: string, command: string): number | undefined {
  return rememberedPort(dataDir, "forgePort", command);
}

/** Remembers the port `url` listens on as `of`'s, for the next start with that folder; the others kept. */
export function rememberPort(dataDir: string, of: PortOf, url: string): void {
  let state: ServeState = {};
  try {
    state = { ...readState(dataDir, "serve") };
  } catch {
    // an unreadable state is written anew
  }
  state[of] = Number(new URL(url).port);
  // the data folder's files are its owner's alone, whatever mode the folder has (docs/operations.md)
  writePrivateFileSync(join(dataDir, STATE_FILE), `${JSON.stringify(state)}\n`);
}

/** Remembers the port the forge of `dataDir` listens on, for the next start with that folder. */
export function rememberForgePort(dataDir: string, forgeUrl: string): void {
  rememberPort(dataDir, "forgePort", forgeUrl);
}
