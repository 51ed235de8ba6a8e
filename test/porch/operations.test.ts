import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { clone } from "../../src/porch/clone.js";
import { upstreamAccess } from "../../src/porch/egress.js";
import { PorchError } from "../../src/porch/errors.js";
import { init } from "../../src/porch/init.js";
import { changeMetadata } from "../../src/porch/metadata.js";
import { pull } from "../../src/porch/pull.js";
import type { OpEnv } from "../../src/porch/steps.js";
import { useRpkgWorld } from "../cli/rpkg/world.js";

/**
 * The engine's operations called as a door other than the command line calls them (Porch's API): plain
 * data in — a repository by name, a package, a workspace — and data out, their steps told to an
 * observer, their failures PorchErrors of a kind, nothing printed.
 */
describe("the engine's operations, called directly", () => {
  const w = useRpkgWorld();
  const steps: string[] = [];
  const env = (token: string): OpEnv & { upstreams: ReturnType<typeof upstreamAccess> } => ({
    token,
    apiUrl: w.forge.apiUrl,
    cacheDir: mkdtempSync(join(tmpdir(), "porch-ops-")),
    authorEnv: {},
    progress: {
      step(label) {
        steps.push(label);
        return { tick() {}, done() {}, fail() {} };
      },
    },
    upstreams: upstreamAccess({}, w.forge.apiUrl),
  });
  const kindOf = async (p: Promise<unknown>) =>
    p.then(
      () => "fulfilled",
      (e: unknown) => (e instanceof PorchError ? e.kind : String(e)),
    );

  it("init answers the new revision's name, and refuses a package that exists as already-exists", async () => {
    const made = await init(env(w.alice), {
      repository: "acme/blueprints",
      package: "app",
      workspace: "w1",
      description: "the app",
      keywords: ["demo"],
    });
    expect(made).toEqual({ name: "blueprints.app.w1" });
    expect(steps).toContain("Creating drafts/app/w1 in acme/blueprints");
    expect(
      await kindOf(init(env(w.alice), { repository: "acme/blueprints", package: "app", workspace: "w2" })),
    ).toBe("already-exists");
  });

  it("pull answers the files with the version they were read at; label refuses a changed value without overwrite, and a namespace that cannot keep labels", async () => {
    const { name, tree } = await pull(env(w.carol), {
      repository: "acme/blueprints",
      name: "blueprints.app.w1",
    });
    expect(name).toBe("blueprints.app.w1");
    expect(tree.get("Kptfile")?.toString()).toContain("description: the app");
    expect(tree.get(".KptRevisionMetadata")?.toString()).toContain("resourceVersion:");
    const label = (value: string, overwrite?: boolean) =>
      changeMetadata(env(w.alice), {
        repository: "acme/blueprints",
        name: "blueprints.app.w1",
        kind: "label",
        changes: { set: new Map([["team", value]]), remove: [] },
        overwrite,
      });
    // no .porchlight to keep it in, and alice may not make one on acme: the registry's words, a bad request
    expect(await kindOf(label("a"))).toBe("bad-request");
    await w.forge.createRepo("acme/.porchlight", { autoInit: true });
    w.forge.setPermission("acme/.porchlight", "alice", "write");
    expect(await label("a")).toEqual({ name: "blueprints.app.w1" });
    expect(await kindOf(label("b"))).toBe("bad-request");
    expect(await label("b", true)).toEqual({ name: "blueprints.app.w1" });
  });

  it("clone takes a published revision by name, and refuses what the egress policy refuses as a bad request", async () => {
    expect((await w.publish("acme/blueprints", "blueprints.app.w1")).code).toBe(0);
    const made = await clone(env(w.alice), {
      repository: "acme/deploy",
      source: "blueprints.app.v1",
      package: "app",
      workspace: "c1",
    });
    expect(made).toEqual({ name: "deploy.app.c1" });
    const refused = clone(env(w.alice), {
      repository: "acme/deploy",
      source: "https://10.1.2.3/private/repo.git",
      package: "other",
    });
    expect(await kindOf(refused)).toBe("bad-request");
  });
});
