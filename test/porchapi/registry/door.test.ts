import { describe, expect, it } from "vitest";
import { door, type Write } from "../../../src/porchapi/registry/door.js";
import type { KubeObject } from "../../../src/porchapi/resources.js";
import { ApiError } from "../../../src/porchapi/status.js";

const caller = { token: "t", signal: new AbortController().signal };
const written: KubeObject = { apiVersion: "v1", kind: "Thing", metadata: { name: "a" } };

/** A storage whose one write lands where `target` says, and records whether it ran. */
function storage(target: Write["target"], verb?: string) {
  const ran: string[] = [];
  const write = (name: string): Write => ({
    name,
    target,
    ...(verb ? { verb } : {}),
    run: async () => {
      ran.push(name);
      return written;
    },
  });
  const store = door("porch.kpt.dev", "packagerevisions", {
    get: async () => written,
    create: async (_c, _ns, obj) => write(String(obj.metadata?.name)),
    update: async (_c, _ns, obj) => write(String(obj.metadata?.name)),
    delete: async (_c, _ns, name) => write(name),
  });
  return { store, ran };
}

const on = (permission: "read" | "write" | "admin") => ({
  full: "acme/blueprints",
  permission,
  whoami: async () => ({ login: "carol", name: "Carol", email: "carol@example.com" }),
});

describe("the registry's door authorizes each write once, before it runs", () => {
  it("refuses a reader's write with 403 in Kubernetes' words, naming their permission, and runs nothing", async () => {
    const { store, ran } = storage(on("read"));
    const refused = await store.delete?.(caller, "acme", "blueprints.web.v1").catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ApiError);
    expect(refused).toMatchObject({
      reason: "Forbidden",
      code: 403,
      message:
        'packagerevisions.porch.kpt.dev "blueprints.web.v1" is forbidden: User "carol" cannot delete resource "packagerevisions" in API group "porch.kpt.dev" in the namespace "acme": carol has read permission on acme/blueprints, and delete needs write',
    });
    expect(ran).toEqual([]);
  });

  it("says the write's own verb where it is not the request's (an approval is an update)", async () => {
    const { store } = storage(on("read"), "approve");
    const refused = await store.update?.(caller, "acme", written, written).catch((e: unknown) => e);
    expect((refused as ApiError).message).toContain('cannot approve resource "packagerevisions"');
  });

  it("runs a writer's write, and one GitHub alone decides (no target)", async () => {
    for (const target of [on("write"), on("admin"), undefined]) {
      const { store, ran } = storage(target);
      expect(await store.create?.(caller, "acme", written)).toEqual(written);
      expect(ran).toEqual(["a"]);
    }
  });

  it("tells the index once of each write it ran, where it landed, before the answer is read; a failed write too, a dry run not", async () => {
    const told: string[] = [];
    const order: string[] = [];
    const store = door(
      "porch.kpt.dev",
      "packagerevisions",
      {
        get: async () => written,
        update: async (_c, _ns, obj) => ({
          name: String(obj.metadata?.name),
          target: on("write"),
          run: async () => {
            if (obj.metadata?.name === "broken") throw new ApiError("Conflict", "moved meanwhile");
            order.push("wrote");
            // the answer, read after the notice
            return async () => {
              order.push("read");
              return written;
            };
          },
        }),
      },
      (ns, repository) => {
        told.push(`${ns} ${repository}`);
        order.push("told");
      },
    );
    expect(await store.update?.(caller, "acme", written, written)).toEqual(written);
    expect(order).toEqual(["wrote", "told", "read"]);
    const broken = { ...written, metadata: { name: "broken" } };
    expect(await store.update?.(caller, "acme", broken, broken).catch((e: unknown) => e)).toBeInstanceOf(
      ApiError,
    );
    await store.update?.(caller, "acme", written, written, undefined, { dryRun: true });
    expect(told).toEqual(["acme acme/blueprints", "acme acme/blueprints"]);
  });
});
