import { loadavg } from "node:os";
import { Watch } from "@kubernetes/client-node";
import type { Forge } from "@porchlight/forge";
import { alive } from "../test/e2e/fleet-process.js";
import {
  type ApiFleet,
  type ApiReplica,
  apiFleet,
  approveThrough,
  draftOf,
  MERGE,
  PR,
  REVISIONS,
  type Revision,
} from "../test/porchapi/fleet-replicas.js";
import { dropPrefix, REDIS_MISSING, testPrefix } from "../test/util/redis.js";

const CYCLES = Number(process.env.API_FLEET_CYCLES ?? 200);
/** Every this many cycles, the cycle's revision is proposed and approved too (the bot renders, checks, publishes). */
const APPROVE_EVERY = Number(process.env.API_FLEET_APPROVE_EVERY ?? 20);

export interface ApiFleetRow {
  measure: string;
  value: string;
}

/** What one run measured. */
interface Run {
  replicas: number;
  cycles: number;
  writes: number;
  /** Reads (GET and LIST through a replica other than the writer's) older than the write answered before them. */
  older: string[];
  /** From each write's answer to its event on a watch of each other replica, ms. */
  delays: number[];
  /** Writes whose event a watch on a live replica never saw. */
  unseen: number;
  /** Failed requests of clients of live replicas. */
  errors: string[];
  /** Watches of live replicas that ended. */
  watchesLost: number;
  /** GitHub requests counted against a budget (REST and GraphQL; git apart, 304s apart), the app's and the callers'. */
  app: number;
  callers: number;
  notModified: number;
  /** The callers' counted requests by route, most first. */
  callerRoutes: string;
  /** The requests answered 304 by route, most first. */
  notModifiedRoutes: string;
  seconds: number;
}

type LoggedRequest = Forge["requestLog"]["entries"][number];
const isGit = (r: LoggedRequest) => /git-upload-pack|git-receive-pack|info\/refs|\.git\//.test(r.path);

/**
 * One controller's 200 cycles against `count` replicas: each cycle creates a Draft through one replica
 * and labels it, every 20th proposes and approves it, each answer read back at once through the other
 * replicas (GET and LIST) and awaited on a watch of each; with `kill`, one replica is killed -9 half-way.
 */
async function run(count: number, kill: boolean): Promise<Run> {
  const prefix = testPrefix(`api-fleet-bench-${count}`);
  let fleet: ApiFleet | undefined;
  try {
    fleet = await apiFleet(count, prefix);
    const f = fleet;
    const log = f.world.forge.requestLog;
    for (const r of f.replicas) await r.client.listNamespacedCustomObject(PR);
    // a watch on each replica: when each name reached each resourceVersion
    const seen = new Map<string, Map<string, number>>();
    const lost = new Set<string>();
    let ending = false;
    const watches: { abort: () => void }[] = [];
    for (const r of f.replicas) {
      const mine = new Map<string, number>();
      seen.set(r.name, mine);
      const list = (await r.client.listNamespacedCustomObject(PR)) as {
        metadata?: { resourceVersion?: string };
      };
      const req = await new Watch(r.kc).watch(
        REVISIONS,
        { resourceVersion: list.metadata?.resourceVersion ?? "" },
        (_type: string, o: Revision) => {
          mine.set(`${o.metadata?.name}@${o.metadata?.resourceVersion}`, performance.now());
        },
        () => {
          if (!ending) lost.add(r.name);
        },
      );
      watches.push(req);
    }
    const start = log.entries.length;
    const began = performance.now();
    const older: string[] = [];
    const errors: string[] = [];
    const writes: { key: string; at: number; by: string }[] = [];
    const live = () => f.replicas.filter(alive);
    let killed: ApiReplica | undefined;
    const approve = (through: ApiReplica, name: string) => approveThrough(through, f.world.alice, name);
    for (let i = 0; i < CYCLES; i++) {
      if (kill && !killed && i === Math.floor(CYCLES / 2)) {
        killed = f.replicas[f.replicas.length - 1];
        killed?.child.kill("SIGKILL");
        await new Promise((resolve) => killed?.child.once("exit", resolve));
      }
      const up = live();
      const writer = up[i % up.length] as ApiReplica;
      const readers = up.length > 1 ? up.filter((r) => r !== writer) : up;
      const name = `blueprints.bench${i}.ws`;
      const wrote = (what: string, answer: Revision) => {
        writes.push({
          key: `${answer.metadata?.name}@${answer.metadata?.resourceVersion}`,
          at: performance.now(),
          by: writer.name,
        });
        return readBack(what, answer);
      };
      const readBack = async (what: string, answer: Revision) => {
        for (const reader of readers) {
          const got = (await reader.client.getNamespacedCustomObject({ ...PR, name })) as Revision;
          if (got.metadata?.resourceVersion !== answer.metadata?.resourceVersion)
            older.push(`${what} ${name}: GET through ${reader.name}`);
        }
        const lister = readers[i % readers.length] as ApiReplica;
        const listed = (await lister.client.listNamespacedCustomObject(PR)) as { items: Revision[] };
        const item = listed.items.find((o) => o.metadata?.name === name);
        if (item?.metadata?.resourceVersion !== answer.metadata?.resourceVersion)
          older.push(`${what} ${name}: LIST through ${lister.name}`);
      };
      try {
        const created = (await writer.client.createNamespacedCustomObject(draftOf(`bench${i}`))) as Revision;
        await wrote("create", created);
        const labelled = (await writer.client.patchNamespacedCustomObject(
          { ...PR, name, body: { metadata: { labels: { cycle: String(i) } } } },
          MERGE,
        )) as Revision;
        await wrote("label", labelled);
        if ((i + 1) % APPROVE_EVERY === 0) {
          const proposed = (await writer.client.patchNamespacedCustomObject(
            { ...PR, name, body: { spec: { lifecycle: "Proposed" } } },
            MERGE,
          )) as Revision;
          await wrote("propose", proposed);
          await wrote("approve", await approve(writer, name));
        }
      } catch (e) {
        errors.push(`cycle ${i} through ${writer.name}: ${(e as Error).message}`);
      }
    }
    // each write's event on every live replica but its writer's: the delay, or unseen after 10 s
    const delays: number[] = [];
    let unseen = 0;
    const deadline = performance.now() + 10_000;
    for (const w of writes)
      for (const r of live()) {
        if (r.name === w.by) continue;
        let at = seen.get(r.name)?.get(w.key);
        while (at === undefined && performance.now() < deadline) {
          await new Promise((resolve) => setTimeout(resolve, 50));
          at = seen.get(r.name)?.get(w.key);
        }
        if (at === undefined) unseen++;
        else delays.push(Math.max(0, at - w.at));
      }
    const seconds = (performance.now() - began) / 1000;
    ending = true;
    for (const w of watches) w.abort();
    const spent = log.entries.slice(start).filter((r) => !isGit(r) && !r.route.includes("access_tokens"));
    const counted = spent.filter((r) => r.status !== 304);
    return {
      replicas: count,
      cycles: CYCLES,
      writes: writes.length,
      older,
      delays,
      unseen,
      errors,
      watchesLost: [...lost].filter((n) => n !== killed?.name).length,
      app: counted.filter((r) => r.installationId !== null).length,
      callers: counted.filter((r) => r.installationId === null && r.login !== null).length,
      notModified: spent.length - counted.length,
      callerRoutes: topRoutes(counted.filter((r) => r.installationId === null && r.login !== null)),
      notModifiedRoutes: `app: ${topRoutes(spent.filter((r) => r.status === 304 && r.installationId !== null))}; callers: ${topRoutes(spent.filter((r) => r.status === 304 && r.installationId === null))}`,
      seconds,
    };
  } finally {
    await fleet?.stop();
    await dropPrefix(prefix);
  }
}

/** The five routes most asked, with their counts. */
function topRoutes(requests: readonly LoggedRequest[]): string {
  const by = new Map<string, number>();
  for (const r of requests) by.set(`${r.method} ${r.route}`, (by.get(`${r.method} ${r.route}`) ?? 0) + 1);
  return [...by]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 5)
    .map(([route, n]) => `${n} ${route}`)
    .join(", ");
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0;
};

/**
 * Porch's API as a fleet (issue #77): one controller's cycles through three replicas on one Redis (writes
 * through one, reads, lists and watches through the others; one replica killed -9 half-way), then the
 * same cycles through one replica alone: reads older than the last answered write, watch delays on the
 * other replicas, what the clients of the live replicas saw fail, and the GitHub requests of the fleet
 * against one replica's. API_FLEET_CYCLES (200) and API_FLEET_APPROVE_EVERY (20) shrink it.
 */
export async function benchApiFleet(): Promise<ApiFleetRow[]> {
  if (REDIS_MISSING) {
    console.log(`api-fleet: skipped (${REDIS_MISSING})`);
    return [];
  }
  const load = () => loadavg()[0]?.toFixed(1) ?? "?";
  const loadBefore = load();
  const fleet = await run(3, true);
  const one = await run(1, false);
  const ms = (x: number) => `${(x / 1000).toFixed(2)} s`;
  const budget = (r: Run) => r.app + r.callers;
  return [
    {
      measure: `cycles (create + label; every ${APPROVE_EVERY}th propose + approve)`,
      value: `${fleet.cycles}`,
    },
    { measure: "fleet: writes answered", value: `${fleet.writes}` },
    {
      measure: "fleet: reads older than the last answered write",
      value: `${fleet.older.length}${fleet.older.length ? ` (${fleet.older.slice(0, 3).join("; ")})` : ""}`,
    },
    {
      measure: "fleet: write → event on a watch of each other replica, p50 / p95 / max",
      value: `${ms(pct(fleet.delays, 50))} / ${ms(pct(fleet.delays, 95))} / ${ms(pct(fleet.delays, 100))}`,
    },
    { measure: "fleet: events a watch of a live replica never saw", value: `${fleet.unseen}` },
    {
      measure: "fleet: failures seen by clients of the live replicas (one killed -9 half-way)",
      value: `${fleet.errors.length + fleet.watchesLost}${fleet.errors.length ? ` (${fleet.errors.slice(0, 2).join("; ")})` : ""}`,
    },
    {
      measure: "GitHub requests counted, fleet of 3 (app + callers; 304s apart)",
      value: `${budget(fleet)} (${fleet.app} + ${fleet.callers}; ${fleet.notModified} answered 304)`,
    },
    {
      measure: "GitHub requests counted, one replica",
      value: `${budget(one)} (${one.app} + ${one.callers}; ${one.notModified} answered 304)`,
    },
    { measure: "fleet: the callers' requests by route", value: fleet.callerRoutes },
    { measure: "one replica: the callers' requests by route", value: one.callerRoutes },
    { measure: "fleet: answered 304, by route", value: fleet.notModifiedRoutes },
    {
      measure: "fleet / one replica, GitHub requests",
      value: `${(budget(fleet) / budget(one)).toFixed(2)}×`,
    },
    {
      measure: "wall: fleet / one replica",
      value: `${fleet.seconds.toFixed(0)} s / ${one.seconds.toFixed(0)} s`,
    },
    { measure: "load average (1 min) before / after", value: `${loadBefore} / ${load()}` },
  ];
}
