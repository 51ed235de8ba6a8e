import { execFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import {
  type KubernetesObject,
  makeInformer,
  PatchStrategy,
  setHeaderOptions,
} from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { testSize } from "../util/test-size.js";
import { until } from "../util/waits.js";
import { type ServeWorld, serveWorld } from "./serve-world.js";

const PR = { group: "porch.kpt.dev", version: "v1alpha1", namespace: "acme", plural: "packagerevisions" };
const PV = {
  group: "config.porch.kpt.dev",
  version: "v1alpha1",
  namespace: "acme",
  plural: "packagevariants",
};
const REVISIONS = "/apis/porch.kpt.dev/v1alpha1/namespaces/acme/packagerevisions";
const MERGE = setHeaderOptions("Content-Type", PatchStrategy.MergePatch);
/**
 * Create → propose → approve cycles, run as LANES controllers at once: fifteen in `npm test` (three a
 * lane, each lane's later cycles meeting the others' publishes), fifty in `npm run test:full`.
 */
const CYCLES = testSize("PORCHLIGHT_TRUST_CYCLES", 15, 50);
const LANES = 5;

type Revision = KubernetesObject & {
  spec?: { lifecycle?: string; revision?: number; packageName?: string; workspaceName?: string };
};
type Variant = KubernetesObject & { status?: { downstreamTargets?: { name: string }[] } };

const git = (cwd: string, ...args: string[]) =>
  promisify(execFile)("git", args, {
    cwd,
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: "reviewer",
      GIT_AUTHOR_EMAIL: "reviewer@example.com",
      GIT_COMMITTER_NAME: "reviewer",
      GIT_COMMITTER_EMAIL: "reviewer@example.com",
    },
  });

/** A PackageVariant of blueprints' hello into `downstream`'s package `pkg`, as a client creates one. */
const variantOf = (name: string, downstream: string, pkg: string) => ({
  ...PV,
  body: {
    apiVersion: "config.porch.kpt.dev/v1alpha1",
    kind: "PackageVariant",
    metadata: { name, namespace: "acme" },
    spec: {
      upstream: { repo: "blueprints", package: "hello" },
      downstream: { repo: downstream, package: pkg },
    },
  },
});

/** A new PackageRevision `blueprints.PKG.WS` made by `task`, as a client creates one. */
const revisionOf = (pkg: string, ws: string, task: Record<string, unknown>) => ({
  ...PR,
  body: {
    apiVersion: "porch.kpt.dev/v1alpha1",
    kind: "PackageRevision",
    metadata: { name: `blueprints.${pkg}.${ws}`, namespace: "acme" },
    spec: {
      packageName: pkg,
      workspaceName: ws,
      repository: "blueprints",
      lifecycle: "Draft",
      tasks: [task],
    },
  },
});

/** What the test waits for, asked every 100 ms, at most `turns` times. */
const waitFor = (what: string, check: () => boolean | Promise<boolean>, turns = 1200) =>
  until(check, what, 100, turns);

/**
 * Porch's API as a controller trusts the Kubernetes API (issue #75), against `porchlight serve` as a
 * newcomer starts it — the bot rendering, checking, publishing and fanning out in the same repositories
 * while the controller works: one object per revision for life (its name and uid through Draft,
 * Proposed, Published; a publish reaches an informer as MODIFIED), every answer the state its write
 * made and never newer than the next read, no conflict for the bot's own work, and a fan-out
 * downstream that keeps its name when approved.
 */
describe("Porch's API keeps the Kubernetes contract while the bot works beside it (porchlight serve)", () => {
  let w: ServeWorld;
  beforeAll(async () => {
    w = await serveWorld();
  }, 120_000);
  afterAll(() => w?.stop());

  const approve = async (name: string, as: "reviewer" | "maintainer" = "reviewer") => {
    const { api } = w.kube(as);
    const current = (await api.getNamespacedCustomObject({ ...PR, name })) as Revision;
    return w.request(as, "PUT", `${REVISIONS}/${name}/approval`, {
      ...current,
      spec: { ...current.spec, lifecycle: "Published" },
    });
  };

  it(`${CYCLES} create → propose → approve cycles while the bot fans out and renders: one object per name, a publish MODIFIED, never DELETED, each answer what the next GET reads`, async () => {
    const { kc, api } = w.kube("reviewer");
    const events: { type: string; name: string; uid: string; lifecycle: string }[] = [];
    const informer = makeInformer<Revision>(kc, REVISIONS, () => api.listNamespacedCustomObject(PR));
    for (const type of ["add", "update", "delete"] as const)
      informer.on(type, (o) =>
        events.push({
          type,
          name: o.metadata?.name ?? "",
          uid: o.metadata?.uid ?? "",
          lifecycle: o.spec?.lifecycle ?? "",
        }),
      );
    const errors: unknown[] = [];
    informer.on("error", (e) => errors.push(e));
    await informer.start();

    // the bot busy in the same repository: a variant fanning blueprints' hello out, a draft rendered
    await api.createNamespacedCustomObject(variantOf("busy-pv", "deploy-prod", "hello-busy"));
    const clone = join(w.data, "busy-clone");
    await git(w.data, "clone", "-q", w.cloneUrl("acme/blueprints", "reviewer"), clone);
    await git(clone, "checkout", "-q", "-b", "drafts/hello/busy");
    writeFileSync(
      join(clone, "hello", "extra.yaml"),
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: extra\n",
    );
    await git(clone, "add", ".");
    await git(clone, "commit", "-q", "-m", "a draft the bot renders");
    await git(clone, "push", "-q", "origin", "drafts/hello/busy");

    const mismatches: string[] = [];
    const check = async (what: string, name: string, answer: Revision) => {
      const next = (await api.getNamespacedCustomObject({ ...PR, name })) as Revision;
      if (next.metadata?.resourceVersion !== answer.metadata?.resourceVersion)
        mismatches.push(
          `${what} ${name}: answered ${answer.spec?.lifecycle}, the next GET read ${next.spec?.lifecycle}`,
        );
    };
    const lane = async (l: number) => {
      for (let i = l; i < CYCLES; i += LANES) {
        const name = `blueprints.cycle${i}.ws`;
        const created = (await api.createNamespacedCustomObject(
          revisionOf(`cycle${i}`, "ws", { type: "init", init: { description: `cycle ${i}` } }),
        )) as Revision;
        expect(created.spec?.lifecycle).toBe("Draft");
        await check("create", name, created);
        const labelled = (await api.patchNamespacedCustomObject(
          { ...PR, name, body: { metadata: { labels: { lane: String(l) } } } },
          MERGE,
        )) as Revision;
        expect(labelled.metadata?.labels?.lane).toBe(String(l));
        await check("label", name, labelled);
        const proposed = (await api.patchNamespacedCustomObject(
          { ...PR, name, body: { spec: { lifecycle: "Proposed" } } },
          MERGE,
        )) as Revision;
        expect(proposed.spec?.lifecycle).toBe("Proposed");
        await check("propose", name, proposed);
        const approved = await approve(name);
        expect(approved.status, approved.body).toBe(200);
        const published = JSON.parse(approved.body) as Revision;
        expect(published.spec?.lifecycle).toBe("Published");
        expect(published.metadata?.name).toBe(name);
        await check("approve", name, published);
      }
    };
    await Promise.all(Array.from({ length: LANES }, (_, l) => lane(l)));
    expect(mismatches).toEqual([]);

    await waitFor("every cycle's publish in the informer", () =>
      Array.from({ length: CYCLES }, (_, i) => `blueprints.cycle${i}.ws`).every((n) =>
        events.some((e) => e.name === n && e.type === "update" && e.lifecycle === "Published"),
      ),
    );
    // (what the informer met until then: its stop ends its watch with an abort of its own)
    const failed = [...errors];
    informer.stop();
    const ours = events.filter((e) => /^blueprints\.cycle\d+\.ws$/.test(e.name));
    expect(ours.filter((e) => e.type === "delete")).toEqual([]);
    for (let i = 0; i < CYCLES; i++) {
      const mine = ours.filter((e) => e.name === `blueprints.cycle${i}.ws`);
      // one object: added once, one uid from Draft to Published
      expect(mine.filter((e) => e.type === "add")).toHaveLength(1);
      expect(new Set(mine.map((e) => e.uid)).size).toBe(1);
    }
    expect(failed).toEqual([]);
  }, 600_000);

  it("after a restart an approval answers the revision it published; a PUT of its resources is on the PackageRevision read right after", async () => {
    const { api } = w.kube("reviewer");
    const name = "blueprints.restarted.ws";
    await api.createNamespacedCustomObject(
      revisionOf("restarted", "ws", { type: "init", init: { description: "restarted" } }),
    );
    // a controller's condition written into the Kptfile: the PackageRevision read next shows it
    const before = (await api.getNamespacedCustomObject({ ...PR, name })) as Revision;
    const resources = (await api.getNamespacedCustomObject({
      ...PR,
      plural: "packagerevisionresources",
      name,
    })) as {
      spec: { resources: Record<string, string> };
    };
    const kptfile = parse(resources.spec.resources.Kptfile ?? "") as { status?: { conditions?: unknown[] } };
    kptfile.status = {
      ...kptfile.status,
      conditions: [...(kptfile.status?.conditions ?? []), { type: "example.com/checked", status: "True" }],
    };
    resources.spec.resources.Kptfile = stringify(kptfile);
    await api.replaceNamespacedCustomObject({
      ...PR,
      plural: "packagerevisionresources",
      name,
      body: resources,
    });
    const after = (await api.getNamespacedCustomObject({ ...PR, name })) as Revision & {
      status?: { conditions?: { type: string; status: string }[] };
    };
    expect(after.metadata?.resourceVersion).not.toBe(before.metadata?.resourceVersion);
    expect(after.status?.conditions).toContainEqual(
      expect.objectContaining({ type: "example.com/checked", status: "True" }),
    );
    await api.patchNamespacedCustomObject({ ...PR, name, body: { spec: { lifecycle: "Proposed" } } }, MERGE);

    await w.restart();
    const approved = await approve(name);
    expect(approved.status, approved.body).toBe(200);
    expect((JSON.parse(approved.body) as Revision).spec).toMatchObject({
      lifecycle: "Published",
      revision: 1,
    });
    const read = (await w.kube("reviewer").api.getNamespacedCustomObject({ ...PR, name })) as Revision;
    expect(read.spec?.lifecycle).toBe("Published");
  }, 300_000);

  it("a fan-out downstream approved through the API keeps its name, and its variant's status names it; the next update is a revision of its own", async () => {
    const { api } = w.kube("maintainer");
    await api.createNamespacedCustomObject(variantOf("cons-pv", "deploy-dev", "hello-cons"));
    const name = "deploy-dev.hello-cons.cons-pv";
    const proposed = async () => {
      try {
        const o = (await api.getNamespacedCustomObject({ ...PR, name })) as Revision;
        return o.spec?.lifecycle === "Proposed";
      } catch {
        return false;
      }
    };
    await waitFor("the variant's downstream proposal", proposed);
    const draft = (await api.getNamespacedCustomObject({ ...PR, name })) as Revision;
    const approved = await approve(name, "maintainer");
    expect(approved.status, approved.body).toBe(200);
    const published = JSON.parse(approved.body) as Revision;
    expect(published.metadata).toMatchObject({ name, uid: draft.metadata?.uid });
    expect(published.spec).toMatchObject({ lifecycle: "Published", revision: 1, workspaceName: "cons-pv" });
    expect(((await api.getNamespacedCustomObject({ ...PR, name })) as Revision).spec?.lifecycle).toBe(
      "Published",
    );
    await waitFor("the variant's status naming its published downstream", async () => {
      const v = (await api.getNamespacedCustomObject({ ...PV, name: "cons-pv" })) as Variant;
      return v.status?.downstreamTargets?.[0]?.name === name;
    });

    // a new upstream revision: the variant's next downstream draft is a revision of its own
    const edit = "blueprints.hello.next";
    await api.createNamespacedCustomObject(
      revisionOf("hello", "next", { type: "edit", edit: { sourceRef: { name: "blueprints.hello.v1" } } }),
    );
    const resources = (await api.getNamespacedCustomObject({
      ...PR,
      plural: "packagerevisionresources",
      name: edit,
    })) as {
      spec: { resources: Record<string, string> };
    };
    resources.spec.resources["next.yaml"] = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: next\n";
    await api.replaceNamespacedCustomObject({
      ...PR,
      plural: "packagerevisionresources",
      name: edit,
      body: resources,
    });
    await api.patchNamespacedCustomObject(
      { ...PR, name: edit, body: { spec: { lifecycle: "Proposed" } } },
      MERGE,
    );
    expect((await approve(edit, "maintainer")).status).toBe(200);
    // a variant applied while that publish fans out (the bot committing to the same folder): created first time
    const during = await api.createNamespacedCustomObject(
      variantOf("during-pv", "deploy-prod", "hello-during"),
    );
    expect((during as Variant).metadata?.name).toBe("during-pv");
    const next = "deploy-dev.hello-cons.cons-pv-2";
    await waitFor("the variant's next downstream draft", async () => {
      try {
        await api.getNamespacedCustomObject({ ...PR, name: next });
        return true;
      } catch {
        return false;
      }
    });
    const first = (await api.getNamespacedCustomObject({ ...PR, name })) as Revision;
    expect(first.spec).toMatchObject({ lifecycle: "Published", revision: 1 });
    await waitFor("the variant's status naming its new downstream draft", async () => {
      const v = (await api.getNamespacedCustomObject({ ...PV, name: "cons-pv" })) as Variant;
      return v.status?.downstreamTargets?.[0]?.name === next;
    });
  }, 300_000);
});
