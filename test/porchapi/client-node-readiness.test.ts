import { request } from "node:https";
import { join } from "node:path";
import {
  CustomObjectsApi,
  KubeConfig,
  type KubernetesObject,
  PatchStrategy,
  setHeaderOptions,
  Watch,
} from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isSeq, parseDocument } from "yaml";
import { startPorchApi } from "../../src/cli/api.js";
import { gitAs } from "../util/git-identity.js";
import { eventually } from "../util/waits.js";
import { type ApiWorld, apiWorld } from "./world.js";

const GROUP = "porch.kpt.dev";
const VERSION = "v1alpha1";
const NS = "acme";
const PR = { group: GROUP, version: VERSION, namespace: NS, plural: "packagerevisions" };
const PRR = { ...PR, plural: "packagerevisionresources" };
const PV = { group: "config.porch.kpt.dev", version: "v1alpha1", namespace: NS, plural: "packagevariants" };

interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}
type Revision = KubernetesObject & {
  metadata: { ownerReferences?: OwnerRef[]; creationTimestamp?: string | Date; resourceVersion?: string };
  spec: { lifecycle: string; revision?: number; readinessGates?: { conditionType: string }[] };
  status?: { conditions?: Condition[] };
};
type Resources = KubernetesObject & { spec: { revision?: number; resources: Record<string, string> } };
interface OwnerRef {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

const GATE = "config.injection.nephio.org/ClusterContext.cluster";
const NAME = "deploy.edge.v1";

/**
 * The downstream's Kptfile as the PackageVariant controller's injection leaves it: a gate under `info`
 * (the one init wrote), and its condition.
 */
const withGate = (kptfile: string, status: "True" | "False") => {
  const doc = parseDocument(kptfile);
  doc.setIn(["info", "readinessGates"], doc.createNode([{ conditionType: GATE }]));
  const reason = status === "True" ? "ConfigInjected" : "NoResourceSelected";
  const condition = doc.createNode({ type: GATE, status, reason });
  const conditions = doc.getIn(["status", "conditions"]);
  // before the render's own condition (Rendered), where the Kptfile has one
  if (isSeq(conditions)) conditions.items.unshift(condition);
  else doc.setIn(["status", "conditions"], doc.createNode([condition]));
  return doc.toString();
};
/** The gate's condition among a revision's. */
const gateOf = (r: { status?: { conditions?: Condition[] } } | undefined) =>
  r?.status?.conditions?.find((c) => c.type === GATE);

/**
 * Porch's PackageVariant controller and Nephio's approval controller, written on the official client as
 * they are written on controller-runtime: the variant creates its downstream revision owned by it (a
 * controller reference by uid), its injection writes the readiness gate and its condition into the
 * Kptfile (a PUT of the PackageRevisionResources) and waits for the watch's MODIFIED event; the approval
 * controller proposes and approves only a revision whose gates are met; then the revision is adopted by
 * another owner and orphaned by the variant, as the controllers do.
 */
describe("Porch's PackageVariant and Nephio's approval controllers on @kubernetes/client-node", () => {
  let w: ApiWorld;
  let api: CustomObjectsApi;
  let kc: KubeConfig;
  let variantUid = "";
  const owner = (): OwnerRef => ({
    apiVersion: "config.porch.kpt.dev/v1alpha1",
    kind: "PackageVariant",
    name: "edge-01",
    uid: variantUid,
    controller: true,
    blockOwnerDeletion: true,
  });
  const get = async (name = NAME) => (await api.getNamespacedCustomObject({ ...PR, name })) as Revision;
  const resources = async (name = NAME) =>
    (await api.getNamespacedCustomObject({ ...PRR, name })) as Resources;
  /** The API's refusal of `call`: its HTTP code and message. */
  const refusal = async (call: Promise<unknown>) =>
    call.then(
      () => ({ code: 0, message: "" }),
      (e: { code?: number; body?: string }) => ({
        code: e.code ?? 0,
        message: String((JSON.parse(e.body ?? "{}") as { message?: string }).message ?? ""),
      }),
    );

  beforeAll(async () => {
    w = await apiWorld({ watchPollMs: 100 });
    kc = new KubeConfig();
    kc.loadFromFile(w.kubeconfig("alice"));
    api = kc.makeApiClient(CustomObjectsApi);
  }, 120_000);
  afterAll(async () => {
    await w?.stop();
  });

  it("creates a downstream revision owned by a variant, and returns its owner on every read", async () => {
    const variant = (await api.createNamespacedCustomObject({
      ...PV,
      body: {
        apiVersion: "config.porch.kpt.dev/v1alpha1",
        kind: "PackageVariant",
        metadata: { name: "edge-01", namespace: NS },
        spec: {
          upstream: { repo: "blueprints", package: "base" },
          downstream: { repo: "deploy", package: "edge" },
        },
      },
    })) as KubernetesObject;
    variantUid = variant.metadata?.uid ?? "";
    expect(variantUid).not.toBe("");
    const made = (await api.createNamespacedCustomObject({
      ...PR,
      body: {
        apiVersion: `${GROUP}/${VERSION}`,
        kind: "PackageRevision",
        metadata: { namespace: NS, ownerReferences: [owner()] },
        spec: {
          packageName: "edge",
          workspaceName: "v1",
          repository: "deploy",
          tasks: [{ type: "init", init: {} }],
        },
      },
    })) as Revision;
    expect(made.metadata.name).toBe(NAME);
    expect(made.metadata.ownerReferences).toEqual([owner()]);
    expect((await get()).metadata.ownerReferences).toEqual([owner()]);
    // the controller finds what it owns by uid in a list
    const list = (await api.listNamespacedCustomObject(PR)) as { items: Revision[] };
    const owned = list.items.filter((r) => r.metadata.ownerReferences?.some((o) => o.uid === variantUid));
    expect(owned.map((r) => r.metadata.name)).toEqual([NAME]);
    // a second controller reference is refused, as the API server refuses it
    const two = await refusal(
      api.replaceNamespacedCustomObject({
        ...PR,
        name: NAME,
        body: {
          ...(await get()),
          metadata: {
            ...(await get()).metadata,
            ownerReferences: [owner(), { ...owner(), uid: "u-2", name: "other" }],
          },
        },
      }),
    );
    expect(two.code).toBe(422);
    expect(two.message).toMatch(/Only one reference can have Controller set to true/);
  }, 120_000);

  it("surfaces the gates and conditions a PRR update writes into the Kptfile: on get, in the watch's MODIFIED event, in a list", async () => {
    const events: { type: string; obj: Revision }[] = [];
    const watch = await new Watch(kc).watch(
      `/apis/${GROUP}/${VERSION}/namespaces/${NS}/packagerevisions`,
      // from the list's version, as an informer watches
      {
        resourceVersion:
          ((await api.listNamespacedCustomObject(PR)) as { metadata?: { resourceVersion?: string } }).metadata
            ?.resourceVersion ?? "",
      },
      (type, obj: Revision) => events.push({ type, obj }),
      () => {},
    );
    try {
      const before = await resources();
      const kptfile = before.spec.resources.Kptfile ?? "";
      await api.replaceNamespacedCustomObject({
        ...PRR,
        name: NAME,
        body: {
          ...before,
          spec: {
            ...before.spec,
            resources: { ...before.spec.resources, Kptfile: withGate(kptfile, "False") },
          },
        },
      });
      await eventually("the watch's MODIFIED event with conditions", () =>
        events.some((e) => e.type === "MODIFIED" && e.obj.metadata.name === NAME && e.obj.status?.conditions),
      );
    } finally {
      watch.abort();
    }
    const modified = events.find((e) => e.type === "MODIFIED" && e.obj.metadata.name === NAME)?.obj;
    expect(modified?.spec.readinessGates).toEqual([{ conditionType: GATE }]);
    expect(modified?.status?.conditions).toEqual([
      { type: GATE, status: "False", reason: "NoResourceSelected" },
      { type: "Rendered", status: "True", reason: "RenderSuccess" },
    ]);
    const got = await get();
    expect(got.spec.readinessGates).toEqual([{ conditionType: GATE }]);
    expect(gateOf(got)?.status).toBe("False");
    // the table a person reads and kubectl's custom columns over the list agree
    const columns = await w.kubectl("alice", [
      "get",
      "packagerevisions",
      "-o",
      "custom-columns=NAME:.metadata.name,GATES:.spec.readinessGates[*].conditionType,READY:.status.conditions[*].status",
    ]);
    const row = columns.stdout.split("\n").find((l) => l.startsWith(`${NAME} `)) ?? "";
    // the gate's condition, then the render's Rendered
    expect(row.split(/\s+/)).toEqual([NAME, GATE, "False,True"]);
  }, 120_000);

  it("refuses to propose through porchctl's verb while a gate is not met; the API, as Porch's server, leaves the gate to its client", async () => {
    const rpkg = await w.rpkg(w.alice, ["propose", NAME, "--namespace=acme"]);
    expect(rpkg.code).toBe(1);
    expect(rpkg.stderr).toContain(`${NAME} failed (readiness conditions not met)`);
    // Porch's server refuses no gate (porchctl and Nephio's controllers check it themselves): a dry run
    // of the move is accepted and changes nothing
    const viaApi = (await api.patchNamespacedCustomObject(
      { ...PR, name: NAME, body: { spec: { lifecycle: "Proposed" } }, dryRun: "All" },
      setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
    )) as Revision;
    expect(viaApi.spec.lifecycle).toBe("Proposed");
    expect((await get()).spec.lifecycle).toBe("Draft");
  }, 120_000);

  it("writes a PackageRevision update's conditions back into the Kptfile, keeping its other bytes, then proposes the ready revision", async () => {
    const written = (await resources()).spec.resources.Kptfile ?? "";
    // the gate's condition set True by an update of the PackageRevision (the render's own kept)
    const current = await get();
    await api.replaceNamespacedCustomObject({
      ...PR,
      name: NAME,
      body: {
        ...current,
        status: {
          ...current.status,
          conditions: (current.status?.conditions ?? []).map((c) =>
            c.type === GATE ? { type: GATE, status: "True", reason: "ConfigInjected" } : c,
          ),
        },
      },
    });
    const after = (await resources()).spec.resources.Kptfile ?? "";
    expect(after).toBe(
      written.replace(
        'status: "False"\n      reason: NoResourceSelected',
        'status: "True"\n      reason: ConfigInjected',
      ),
    );
    expect(after).not.toBe(written);
    expect(gateOf(await get())).toEqual({ type: GATE, status: "True", reason: "ConfigInjected" });
    // a gate given in the spec is written too (and one left out of a list given is removed)
    const again = await get();
    await api.replaceNamespacedCustomObject({
      ...PR,
      name: NAME,
      body: {
        ...again,
        spec: {
          ...again.spec,
          readinessGates: [{ conditionType: GATE }, { conditionType: "nephio.org/Specializer.specialize" }],
        },
      },
    });
    expect((await get()).spec.readinessGates).toEqual([
      { conditionType: GATE },
      { conditionType: "nephio.org/Specializer.specialize" },
    ]);
    const withSecond = await get();
    await api.replaceNamespacedCustomObject({
      ...PR,
      name: NAME,
      body: { ...withSecond, spec: { ...withSecond.spec, readinessGates: [{ conditionType: GATE }] } },
    });
    expect((await resources()).spec.resources.Kptfile).toBe(after);
    // Nephio's approval controller: ready, so proposed
    await api.patchNamespacedCustomObject(
      { ...PR, name: NAME, body: { spec: { lifecycle: "Proposed" } } },
      setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
    );
    expect((await get()).spec.lifecycle).toBe("Proposed");
  }, 120_000);

  it("refuses porchctl's approval while a gate is not met, and approves once it is", async () => {
    // a specializer turns the condition back to False on the proposal's branch
    const dir = join(w.tmp, "edge-clone");
    await git(w.tmp, "clone", "-q", "-b", "drafts/edge/v1", w.forge.cloneUrl("acme/deploy", w.bob), dir);
    const kptfile = (await resources()).spec.resources.Kptfile ?? "";
    const flip = async (from: string, to: string) => {
      const { writeFileSync } = await import("node:fs");
      writeFileSync(
        join(dir, "edge", "Kptfile"),
        (await resources()).spec.resources.Kptfile?.replace(from, to) ?? "",
      );
      await git(dir, "commit", "-qam", `edge: condition ${to}`);
      await git(dir, "push", "-q", "origin", "drafts/edge/v1");
    };
    expect(kptfile).toContain('status: "True"');
    await flip('status: "True"', 'status: "False"');
    await w.greenChecks("acme/deploy");
    const approve = () =>
      w.kubectl("bob", [
        "patch",
        "packagerevision",
        NAME,
        "--subresource=approval",
        "--type=merge",
        "-p",
        '{"spec":{"lifecycle":"Published"}}',
      ]);
    // Nephio's approval controller and porchctl hold it back; the server leaves that to them, as Porch's
    const rpkg = await w.rpkg(w.bob, ["approve", NAME, "--namespace=acme"]);
    expect(rpkg.stderr).toContain(`${NAME} failed (readiness conditions not met)`);
    expect((await get()).spec.lifecycle).toBe("Proposed");
    await flip('status: "False"', 'status: "True"');
    await w.greenChecks("acme/deploy");
    const ok = await approve();
    expect(ok).toMatchObject({ code: 0, stdout: `packagerevision.porch.kpt.dev/${NAME} patched\n` });
    const published = await get();
    expect(published.spec.lifecycle).toBe("Published");
    expect(gateOf(published)).toEqual({ type: GATE, status: "True", reason: "ConfigInjected" });
    expect(published.metadata.ownerReferences).toEqual([owner()]);
  }, 180_000);

  it("adopts and orphans a published revision: the owner references persist", async () => {
    const other: OwnerRef = {
      apiVersion: "config.porch.kpt.dev/v1alpha1",
      kind: "PackageVariantSet",
      name: "fleet",
      uid: "0b7f3c2e-1111-4c1a-9a55-8d2c1d0e0f01",
    };
    const pr = await get();
    await api.replaceNamespacedCustomObject({
      ...PR,
      name: NAME,
      body: {
        ...pr,
        metadata: {
          ...pr.metadata,
          ownerReferences: [owner(), other],
          labels: { ...pr.metadata.labels, adopted: "yes" },
        },
      },
    });
    const adopted = await get();
    expect(adopted.metadata.ownerReferences).toEqual([owner(), other]);
    expect(adopted.metadata.labels).toMatchObject({ adopted: "yes" });
    // orphaned by the variant (Porch's removeOwnerRefByUID), through kubectl's JSON patch
    const orphan = await w.kubectl("alice", [
      "patch",
      "packagerevision",
      NAME,
      "--type=json",
      "-p",
      '[{"op":"remove","path":"/metadata/ownerReferences/0"}]',
    ]);
    expect(orphan).toMatchObject({ code: 0 });
    expect((await get()).metadata.ownerReferences).toEqual([other]);
    const shown = await w.kubectl("carol", [
      "get",
      "packagerevision",
      NAME,
      "-o",
      "jsonpath={.metadata.ownerReferences[*].uid}",
    ]);
    expect(shown.stdout).toBe(other.uid);
  }, 120_000);

  it("gives revisions and repositories creation times from git: sortable, the same from a restarted server, AGE shown", async () => {
    const sorted = await w.kubectl("alice", [
      "get",
      "packagerevisions",
      "--sort-by=.metadata.creationTimestamp",
      "-o",
      "custom-columns=NAME:.metadata.name,CREATED:.metadata.creationTimestamp",
      "--no-headers",
    ]);
    expect(sorted.code).toBe(0);
    const rows = sorted.stdout
      .trim()
      .split("\n")
      .map((l) => l.split(/\s+/) as [string, string]);
    expect(rows.map(([n]) => n)).toContain(NAME);
    for (const [, at] of rows) expect(at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const times = rows.map(([, at]) => at);
    expect([...times].sort()).toEqual(times);
    // a second server (a restart: nothing remembered) answers the same times
    const again = await startPorchApi({ host: "127.0.0.1", port: 0, apiUrl: w.forge.apiUrl, env: {} });
    try {
      const list = JSON.parse(
        await httpsGet(
          `${again.url}/apis/${GROUP}/${VERSION}/namespaces/${NS}/packagerevisions`,
          again.caPem ?? "",
          w.alice,
        ),
      ) as { items: Revision[] };
      const fresh = new Map(list.items.map((r) => [r.metadata.name, r.metadata.creationTimestamp]));
      for (const [name, at] of rows) expect(fresh.get(name)).toBe(at);
    } finally {
      await again.close();
    }
    const repos = await w.kubectl("alice", ["get", "repositories"]);
    expect(repos.stdout.split("\n")[0]).toMatch(/\bAGE$/);
    expect(repos.stdout).toMatch(/\ndeploy\s.*\s\d+[smh]\d*[smh]?\n/);
    const repoTimes = await w.kubectl("alice", [
      "get",
      "repo",
      "-o",
      "jsonpath={.items[*].metadata.creationTimestamp}",
    ]);
    expect(repoTimes.stdout.split(" ")).toHaveLength(2);
    for (const at of repoTimes.stdout.split(" ")) expect(at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  }, 120_000);

  it("reads the placeholder revision as -1 in packagerevisions and packagerevisionresources alike, as Porch", async () => {
    const placeholder = "deploy.edge.main";
    expect((await get(placeholder)).spec.revision).toBe(-1);
    expect((await resources(placeholder)).spec.revision).toBe(-1);
  }, 60_000);

  it("takes a GitOps agent's server-side apply of a PackageVariant twice by one manager: the second changes nothing", async () => {
    const doc = {
      apiVersion: "config.porch.kpt.dev/v1alpha1",
      kind: "PackageVariant",
      metadata: { name: "edge-02", namespace: NS },
      spec: {
        upstream: { repo: "blueprints", package: "base" },
        downstream: { repo: "deploy", package: "edge-02" },
      },
    };
    const apply = () =>
      api.patchNamespacedCustomObject(
        { ...PV, name: "edge-02", body: doc, fieldManager: "flux", force: true },
        setHeaderOptions("Content-Type", PatchStrategy.ServerSideApply),
      ) as Promise<KubernetesObject>;
    await apply();
    const first = (await api.getNamespacedCustomObject({ ...PV, name: "edge-02" })) as KubernetesObject;
    const second = await apply();
    expect(second.metadata?.resourceVersion).toBe(first.metadata?.resourceVersion);
    expect(second.metadata?.managedFields).toEqual(first.metadata?.managedFields);
    expect(second.metadata?.managedFields?.map((m) => [m.manager, m.operation])).toEqual([["flux", "Apply"]]);
    // and as kubectl applies it
    const text = JSON.stringify({ ...doc, metadata: { name: "edge-03", namespace: NS } });
    const once = await w.kubectl("alice", ["apply", "--server-side", "-f", "-"], { stdin: text });
    const twice = await w.kubectl("alice", ["apply", "--server-side", "-f", "-"], { stdin: text });
    expect(once.stdout).toBe("packagevariant.config.porch.kpt.dev/edge-03 serverside-applied\n");
    expect(twice).toMatchObject({
      code: 0,
      stdout: "packagevariant.config.porch.kpt.dev/edge-03 serverside-applied\n",
    });
    const kept = await w.kubectl("alice", [
      "get",
      "packagevariant",
      "edge-03",
      "-o",
      "jsonpath={.metadata.managedFields[*].manager}",
      "--show-managed-fields",
    ]);
    expect(kept.stdout).toBe("kubectl");
  }, 120_000);
});

const git = gitAs("Bob");

function httpsGet(url: string, ca: string, token: string): Promise<string> {
  return new Promise((resolve, reject) => {
    request(url, { ca, headers: { authorization: `Bearer ${token}` } }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => {
        body += c;
      });
      res.on("end", () => resolve(body));
    })
      .on("error", reject)
      .end();
  });
}
