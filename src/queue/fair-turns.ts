import type { JobOrigin } from "./repo-queue.js";

/**
 * Whose turn it is: the scheduling both job queues share (this one in one process, its Lua twin in
 * src/queue/fair-redis.ts for Redis; docs/operations.md "Fair turns").
 *
 * A repository is *ready* when it has a job waiting and none running (one job per repository at a
 * time). A repository with an event's job waiting is in the `event` class, otherwise in the `sweep`
 * class, and every `event` repository is served before any `sweep` one. Within a class, installations
 * take turns and, within an installation, its repositories take turns: the next job is the ready
 * repository's served least recently, of the installation served least recently (one never served
 * before goes first, in the order they came). Taking a job is serving its repository and installation.
 *
 * So a repository with a deep backlog has one job at a time in line: a job of another repository, or
 * of another installation, waits for at most one job of each repository (installation) that was served
 * less recently than its own, never for the backlog.
 */
export interface Turn {
  repo: string;
  installation: string;
}

export type TurnClass = JobOrigin;

/** The classes in the order they are served. */
const CLASSES: readonly TurnClass[] = ["event", "sweep"];

/** The installation a repository's jobs are counted to: its owner (an installation is one account). */
export function installationOf(repo: string): string {
  const slash = repo.indexOf("/");
  return slash < 0 ? repo : repo.slice(0, slash);
}

/** Ahead of every stamp of a service: one never served goes before any served, in arrival order. */
const NEVER = 2 ** 50;

interface Line {
  /** Its installation's stamp. */
  at: number;
  /** Its ready repositories and their stamps. */
  repos: Map<string, number>;
}

export class FairTurns {
  private seq = 0;
  /** When each installation (`i:…`) and repository (`r:…`) was last served. */
  private readonly served = new Map<string, number>();
  private readonly lines: Record<TurnClass, Map<string, Line>> = { event: new Map(), sweep: new Map() };

  /** `repo` has a job waiting and none running: it gets in its installation's line in `cls`. */
  ready(turn: Turn, cls: TurnClass): void {
    const at = this.stamp(`r:${turn.repo}`);
    this.lineOf(cls, turn.installation).repos.set(turn.repo, at);
  }

  /** An event's job now waits in `repo`, ready in the sweep's class: it moves to the events'. */
  raise(turn: Turn): void {
    const sweep = this.lines.sweep.get(turn.installation);
    const at = sweep?.repos.get(turn.repo);
    if (sweep === undefined || at === undefined) return;
    sweep.repos.delete(turn.repo);
    if (sweep.repos.size === 0) this.lines.sweep.delete(turn.installation);
    this.lineOf("event", turn.installation).repos.set(turn.repo, at);
  }

  /** Takes the next turn (the repository leaves the line until it is ready again), or none. */
  next(): (Turn & { cls: TurnClass }) | undefined {
    for (const cls of CLASSES) {
      const first = firstOf(this.lines[cls], (line) => line.at);
      if (!first) continue;
      const [installation, line] = first;
      const [repo] = firstOf(line.repos, (at) => at) ?? [];
      if (repo === undefined) continue;
      line.repos.delete(repo);
      if (line.repos.size === 0) this.lines[cls].delete(installation);
      const at = ++this.seq;
      this.served.set(`i:${installation}`, at);
      this.served.set(`r:${repo}`, ++this.seq);
      for (const c of CLASSES) {
        const l = this.lines[c].get(installation);
        if (l) l.at = at;
      }
      return { repo, installation, cls };
    }
    return undefined;
  }

  private stamp(who: string): number {
    let at = this.served.get(who);
    if (at === undefined) {
      at = ++this.seq - NEVER;
      this.served.set(who, at);
    }
    return at;
  }

  private lineOf(cls: TurnClass, installation: string): Line {
    let line = this.lines[cls].get(installation);
    if (!line) {
      line = { at: this.stamp(`i:${installation}`), repos: new Map() };
      this.lines[cls].set(installation, line);
    }
    return line;
  }
}

/** The entry of `map` whose `order` is least. */
function firstOf<V>(map: Map<string, V>, order: (v: V) => number): [string, V] | undefined {
  let best: [string, V] | undefined;
  for (const entry of map) if (!best || order(entry[1]) < order(best[1])) best = entry;
  return best;
}
