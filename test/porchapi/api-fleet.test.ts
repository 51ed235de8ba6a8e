import { makeInformer } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { alive } from "../e2e/fleet-process.js";
import { dropPrefix, hasRedis, REDIS_MISSING, testPrefix } from "../util/redis.js";
import { eventually } from "../util/waits.js";
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
} from "./fleet-replicas.js";

const CYCLES = 4;

/**
 * Porch's API served by three `porchlight serve` replicas on one Redis (issue #77): a controller that
 * writes through one replica and reads through another never reads older than its last answered write,
 * and a watch on a third sees each change — though each replica's index would otherwise hold its reading
 * for half an hour (PORCHLIGHT_API_INDEX_MAX_AGE_MS). That is longer than this file runs, so no reading
 * runs out during it: what keeps a replica current is the fleet's notices alone. At the default, a
 * minute, a loaded machine's earlier tests outlasted a listing of pull requests, and a replica
 * listed them again in a test that counts such listings.
 */
describe.skipIf(!hasRedis)(
  `Porch's API as a fleet of three replicas${REDIS_MISSING ? ` (skipped: ${REDIS_MISSING})` : ""}`,
  () => {
    let fleet: ApiFleet;
    let prefix: string;
    let alice: string;

    beforeAll(async () => {
      prefix = testPrefix("api-fleet");
      fleet = await apiFleet(3, prefix, { PORCHLIGHT_API_INDEX_MAX_AGE_MS: String(30 * 60_000) });
      alice = fleet.world.alice;
    }, 180_000);

    afterAll(async () => {
      await fleet?.stop();
      if (prefix) await dropPrefix(prefix);
    });

    const approve = (through: ApiReplica, name: string) => approveThrough(through, alice, name);
    const lifecycle = async (r: ApiReplica, name: string) =>
      ((await r.client.getNamespacedCustomObject({ ...PR, name })) as Revision).spec?.lifecycle;
    /** alice's listings of pull requests since log entry `from`, each as its path and status. */
    const pullListings = (from: number) =>
      fleet.world.forge.requestLog.entries
        .slice(from)
        .filter((e) => e.login === "alice" && e.method === "GET" && e.route === "/repos/{owner}/{repo}/pulls")
        .map((e) => `${e.path} ${e.status}`);

    it("a write answered by one replica is what the next read through another answers; a watch on a third sees each change", async () => {
      const [a, b, c] = fleet.replicas as [ApiReplica, ApiReplica, ApiReplica];
      // every replica's index holds a reading of the namespace from before the writes
      for (const r of fleet.replicas) await r.client.listNamespacedCustomObject(PR);
      const events: { type: string; name: string; uid: string; lifecycle: string }[] = [];
      const informer = makeInformer<Revision>(c.kc, REVISIONS, () => c.client.listNamespacedCustomObject(PR));
      for (const type of ["add", "update", "delete"] as const)
        informer.on(type, (o) =>
          events.push({
            type,
            name: o.metadata?.name ?? "",
            uid: o.metadata?.uid ?? "",
            lifecycle: o.spec?.lifecycle ?? "",
          }),
        );
      await informer.start();

      const older: string[] = [];
      /** The read through `reader` right after `answer` of a write through another replica. */
      const readBack = async (what: string, reader: ApiReplica, answer: Revision) => {
        const name = answer.metadata?.name ?? "";
        const got = (await reader.client.getNamespacedCustomObject({ ...PR, name })) as Revision;
        if (got.metadata?.resourceVersion !== answer.metadata?.resourceVersion)
          older.push(
            `${what} of ${name} through ${reader.name}: read ${got.spec?.lifecycle} rv ${got.metadata?.resourceVersion}, answered ${answer.spec?.lifecycle} rv ${answer.metadata?.resourceVersion}`,
          );
        const listed = (await reader.client.listNamespacedCustomObject(PR)) as { items: Revision[] };
        const item = listed.items.find((i) => i.metadata?.name === name);
        if (item?.metadata?.resourceVersion !== answer.metadata?.resourceVersion)
          older.push(
            `${what} of ${name}: ${reader.name}'s list ${item ? `held rv ${item.metadata?.resourceVersion}` : "left it out"}`,
          );
      };
      for (let i = 0; i < CYCLES; i++) {
        // the writer and the reader change places each cycle: every replica writes and reads
        const [writer, reader] = i % 2 === 0 ? [a, b] : [b, a];
        const name = `blueprints.fleet${i}.ws`;
        const created = (await writer.client.createNamespacedCustomObject(draftOf(`fleet${i}`))) as Revision;
        await readBack("create", reader, created);
        const labelled = (await writer.client.patchNamespacedCustomObject(
          { ...PR, name, body: { metadata: { labels: { cycle: String(i) } } } },
          MERGE,
        )) as Revision;
        await readBack("label", reader, labelled);
        const proposed = (await writer.client.patchNamespacedCustomObject(
          { ...PR, name, body: { spec: { lifecycle: "Proposed" } } },
          MERGE,
        )) as Revision;
        expect(proposed.spec?.lifecycle).toBe("Proposed");
        await readBack("propose", reader, proposed);
        const published = await approve(writer, name);
        expect(published.spec?.lifecycle).toBe("Published");
        await readBack("approve", reader, published);
      }
      expect(older).toEqual([]);

      await eventually("the watch on the third replica sees every revision published", () =>
        Array.from({ length: CYCLES }, (_, i) => `blueprints.fleet${i}.ws`).every((n) =>
          events.some((e) => e.name === n && e.lifecycle === "Published"),
        ),
      );
      await informer.stop();
      const mine = events.filter((e) => e.name.startsWith("blueprints.fleet"));
      expect(mine.filter((e) => e.type === "delete")).toEqual([]);
      for (let i = 0; i < CYCLES; i++) {
        const uids = new Set(mine.filter((e) => e.name === `blueprints.fleet${i}.ws`).map((e) => e.uid));
        expect(uids.size).toBe(1);
      }
    }, 300_000);

    it("a draft created through one replica costs the others no listing of its branch's pull requests", async () => {
      const [a, b, c] = fleet.replicas as [ApiReplica, ApiReplica, ApiReplica];
      for (const r of fleet.replicas) await r.client.listNamespacedCustomObject(PR);
      const log = fleet.world.forge.requestLog;
      const from = log.entries.length;
      const created = (await a.client.createNamespacedCustomObject(draftOf("noted"))) as Revision;
      const name = created.metadata?.name ?? "";
      for (const reader of [b, c]) {
        const got = (await reader.client.getNamespacedCustomObject({ ...PR, name })) as Revision;
        expect(got.metadata?.resourceVersion).toBe(created.metadata?.resourceVersion);
        await reader.client.listNamespacedCustomObject(PR);
      }
      // the writer noted the draft it made (no pull request can have been merged at it), and told the
      // others: none asks GitHub about it (the open pull requests, unchanged, are asked as 304s)
      const counted = log.entries
        .slice(from)
        .filter((e) => e.login === "alice" && e.route === "/repos/{owner}/{repo}/pulls" && e.status !== 304);
      expect(counted.map((e) => `${e.method} ${e.path} ${e.status}`)).toEqual([]);
    }, 120_000);

    it("a proposal and its approval through one replica: the others answer each from what the writer told, listing nothing", async () => {
      const [a, b, c] = fleet.replicas as [ApiReplica, ApiReplica, ApiReplica];
      const created = (await a.client.createNamespacedCustomObject(draftOf("told"))) as Revision;
      const name = created.metadata?.name ?? "";
      for (const r of fleet.replicas) await r.client.getNamespacedCustomObject({ ...PR, name });
      const from = fleet.world.forge.requestLog.entries.length;
      await a.client.patchNamespacedCustomObject(
        { ...PR, name, body: { spec: { lifecycle: "Proposed" } } },
        MERGE,
      );
      for (const reader of [b, c]) expect(await lifecycle(reader, name)).toBe("Proposed");
      await approve(a, name);
      for (const reader of [b, c]) expect(await lifecycle(reader, name)).toBe("Published");
      // each write's changes of pull requests (the one opened, the one merged) were told before its
      // notice: the other replicas know them as the writer does, and ask GitHub nothing about them
      expect(pullListings(from)).toEqual([]);
    }, 180_000);

    it("a pull request opened on GitHub, its webhook heard by one replica, is answered by each from the notice, listing nothing", async () => {
      for (const r of fleet.replicas) await r.client.listNamespacedCustomObject(PR);
      const [a] = fleet.replicas as [ApiReplica];
      const created = (await a.client.createNamespacedCustomObject(draftOf("byhand"))) as Revision;
      const name = created.metadata?.name ?? "";
      for (const r of fleet.replicas) expect(await lifecycle(r, name)).toBe("Draft");
      const from = fleet.world.forge.requestLog.entries.length;
      // alice proposes it on GitHub itself: the balancer delivers the webhook to one replica
      const opened = await fetch(`${fleet.world.forge.apiUrl}/repos/acme/blueprints/pulls`, {
        method: "POST",
        headers: { authorization: `token ${alice}`, "content-type": "application/json" },
        body: JSON.stringify({ head: "drafts/byhand/ws", base: "main", title: "by hand", body: "" }),
      });
      expect(opened.status).toBe(201);
      for (const r of fleet.replicas)
        await eventually(
          `replica ${r.name} answers ${name} Proposed`,
          async () => (await lifecycle(r, name)) === "Proposed",
        );
      // the replica that heard it applied the event's pull request, and told the others with it
      expect(pullListings(from)).toEqual([]);
    }, 120_000);

    it("a replica killed: the others answer on; one started again serves what was written while it was away", async () => {
      const [a, b, c] = fleet.replicas as [ApiReplica, ApiReplica, ApiReplica];
      await c.client.listNamespacedCustomObject(PR);
      c.child.kill("SIGKILL");
      await eventually("replica c is gone", () => !alive(c));
      const created = (await a.client.createNamespacedCustomObject(draftOf("gone"))) as Revision;
      const read = (await b.client.getNamespacedCustomObject({
        ...PR,
        name: "blueprints.gone.ws",
      })) as Revision;
      expect(read.metadata?.resourceVersion).toBe(created.metadata?.resourceVersion);
      const again = await fleet.add("c2");
      const listed = (await again.client.listNamespacedCustomObject(PR)) as { items: Revision[] };
      expect(
        listed.items.find((i) => i.metadata?.name === "blueprints.gone.ws")?.metadata?.resourceVersion,
      ).toBe(created.metadata?.resourceVersion);
    }, 180_000);
  },
);
