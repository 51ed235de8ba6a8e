import { CustomObjectsApi, KubeConfig } from "@kubernetes/client-node";
import type { Forge } from "@porchlight/forge";
import { type RpkgWorld, rpkgWorld } from "../cli/rpkg/world.js";
import { alive, type Replica, roundRobin, startReplica } from "../e2e/fleet-process.js";
import { eventually } from "../util/waits.js";

/** One replica of the fleet with Porch's API, and a controller's client of it (alice's token). */
export interface ApiReplica extends Replica {
  api: string;
  client: CustomObjectsApi;
  kc: KubeConfig;
}

/** `porchlight serve` as one replica of the fleet, serving Porch's API (plain HTTP on loopback). */
async function apiReplica(
  forge: Forge,
  creds: ReturnType<Forge["createApp"]>,
  name: string,
  prefix: string,
  token: string,
): Promise<ApiReplica> {
  const r = await startReplica(forge, creds, name, prefix, {
    PORCHLIGHT_API_PORT: "0",
    PORCHLIGHT_API_HOST: "127.0.0.1",
    PORCHLIGHT_API_HTTP: "loopback",
  });
  await eventually(`replica ${name} serves Porch's API`, () => /Porch's API: \S+/.test(r.output()), 60_000);
  const api = /Porch's API: (\S+)/.exec(r.output())?.[1] ?? "";
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name, server: api, skipTLSVerify: true }],
    users: [{ name: "alice", token }],
    contexts: [{ name, cluster: name, user: "alice", namespace: "acme" }],
    currentContext: name,
  });
  return { ...r, api, kc, client: kc.makeApiClient(CustomObjectsApi) };
}

export interface ApiFleet {
  world: RpkgWorld;
  creds: ReturnType<Forge["createApp"]>;
  replicas: ApiReplica[];
  /** The balancer the forge delivers the app's webhooks to, round-robin over the live replicas. */
  balancer: Awaited<ReturnType<typeof roundRobin>>;
  /** One more replica on the fleet's Redis (one started again). */
  add(name: string): Promise<ApiReplica>;
  stop(): Promise<void>;
}

/**
 * rpkg's world (acme/blueprints and acme/deploy registered in namespace acme; alice and bob write) and
 * `count` replicas of `porchlight serve` on one Redis (keys under `prefix`), each serving Porch's API,
 * the app's webhooks delivered round-robin: the fleet test and the fleet bench.
 */
export async function apiFleet(count: number, prefix: string): Promise<ApiFleet> {
  const world = await rpkgWorld();
  await world.forge.createRepo("acme/.porchlight", { autoInit: true });
  for (const u of ["alice", "bob"]) world.forge.setPermission("acme/.porchlight", u, "write");
  for (const repo of ["blueprints", "deploy"]) {
    const r = await world.cli(world.alice, ["repo", "register", `acme/${repo}`, "--namespace=acme"]);
    if (r.code !== 0) throw new Error(`repo register ${repo}: ${r.stderr}`);
  }
  const creds = world.forge.createApp({ name: "porchlight-fleet", owner: "acme" });
  world.forge.createInstallation(creds.appId, "acme");
  const replicas: ApiReplica[] = [];
  const add = async (name: string) => {
    const r = await apiReplica(world.forge, creds, name, prefix, world.alice);
    replicas.push(r);
    return r;
  };
  for (let i = 0; i < count; i++) await add(String.fromCharCode(97 + i));
  const balancer = await roundRobin(() => replicas.filter(alive));
  world.forge.setWebhookUrl(balancer.url);
  return {
    world,
    creds,
    replicas,
    balancer,
    add,
    async stop() {
      world.forge.setWebhookUrl(null);
      for (const r of replicas) if (alive(r)) r.child.kill("SIGKILL");
      balancer.server.close();
      await world.stop();
    },
  };
}
