import {
  CustomObjectsApi,
  KubeConfig,
  type KubernetesObject,
  PatchStrategy,
  setHeaderOptions,
} from "@kubernetes/client-node";
import type { Forge } from "@porchlight/forge";
import { type RpkgWorld, rpkgWorld } from "../cli/rpkg/world.js";
import { alive, type Replica, roundRobin, startReplica } from "../e2e/fleet-process.js";
import { eventually } from "../util/waits.js";

/** acme's package revisions, as client-node's calls name them and as a path. */
export const PR = {
  group: "porch.kpt.dev",
  version: "v1alpha1",
  namespace: "acme",
  plural: "packagerevisions",
};
export const REVISIONS = "/apis/porch.kpt.dev/v1alpha1/namespaces/acme/packagerevisions";
/** A JSON merge patch, as client-node sends one. */
export const MERGE = setHeaderOptions("Content-Type", PatchStrategy.MergePatch);

export type Revision = KubernetesObject & { spec?: { lifecycle?: string } };

/** A new Draft `blueprints.PKG.ws` made by init, as a controller creates one. */
export const draftOf = (pkg: string) => ({
  ...PR,
  body: {
    apiVersion: "porch.kpt.dev/v1alpha1",
    kind: "PackageRevision",
    metadata: { name: `blueprints.${pkg}.ws`, namespace: "acme" },
    spec: {
      packageName: pkg,
      workspaceName: "ws",
      repository: "blueprints",
      lifecycle: "Draft",
      tasks: [{ type: "init", init: { description: pkg } }],
    },
  },
});

/**
 * Approves `name` through `through` as `token`'s holder: a GET, then a PUT of the approval subresource
 * (client-node has no call for it); the answer, or an error naming the status.
 */
export async function approveThrough(through: ApiReplica, token: string, name: string): Promise<Revision> {
  const current = (await through.client.getNamespacedCustomObject({ ...PR, name })) as Revision;
  const res = await fetch(`${through.api}${REVISIONS}/${name}/approval`, {
    method: "PUT",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ ...current, spec: { ...current.spec, lifecycle: "Published" } }),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`approval of ${name}: ${res.status} ${text}`);
  return JSON.parse(text) as Revision;
}

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
  env: Record<string, string>,
): Promise<ApiReplica> {
  const r = await startReplica(forge, creds, name, prefix, {
    PORCHLIGHT_API_PORT: "0",
    PORCHLIGHT_API_HOST: "127.0.0.1",
    PORCHLIGHT_API_HTTP: "loopback",
    ...env,
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
 * the app's webhooks delivered round-robin: the fleet test and the fleet bench. `env` adds to each
 * replica's environment.
 */
export async function apiFleet(
  count: number,
  prefix: string,
  env: Record<string, string> = {},
): Promise<ApiFleet> {
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
    const r = await apiReplica(world.forge, creds, name, prefix, world.alice, env);
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
