import { join } from "node:path";
import {
  CustomObjectsApi,
  type Informer,
  KubeConfig,
  type KubernetesObject,
  makeInformer,
  type ObjectCache,
  PatchStrategy,
  setHeaderOptions,
} from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pushDraft } from "../util/git-draft.js";
import { gitAs } from "../util/git-identity.js";
import { eventually } from "../util/waits.js";
import { type ApiWorld, apiWorld } from "./world.js";

const GROUP = "porch.kpt.dev";
const VERSION = "v1alpha1";
const PLURAL = "packagerevisions";

type Revision = KubernetesObject & {
  spec?: { lifecycle?: string; repository?: string; packageName?: string };
};

/**
 * A small controller written as Nephio's are, on the official JavaScript client (`@kubernetes/client-node`):
 * an informer (list, then watch) on packagerevisions of namespace acme, which proposes every Draft of the
 * deploy repository and labels it `proposed-by=controller` (one merge patch). It acts as alice, with the
 * kubeconfig porchlight writes, over HTTPS.
 */
function autoProposer(kc: KubeConfig) {
  const api = kc.makeApiClient(CustomObjectsApi);
  const path = `/apis/${GROUP}/${VERSION}/namespaces/acme/${PLURAL}`;
  const informer: Informer<Revision> & ObjectCache<Revision> = makeInformer(kc, path, () =>
    api.listNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: "acme", plural: PLURAL }),
  );
  const acted: string[] = [];
  const deleted: string[] = [];
  const errors: unknown[] = [];
  const react = async (obj: Revision) => {
    const name = obj.metadata?.name ?? "";
    if (obj.spec?.repository !== "deploy" || obj.spec.lifecycle !== "Draft") return;
    acted.push(name);
    await api.patchNamespacedCustomObject(
      {
        group: GROUP,
        version: VERSION,
        namespace: "acme",
        plural: PLURAL,
        name,
        body: { metadata: { labels: { "proposed-by": "controller" } }, spec: { lifecycle: "Proposed" } },
      },
      setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
    );
  };
  const handle = (obj: Revision) => {
    react(obj).catch((e: unknown) => errors.push(e));
  };
  informer.on("add", handle);
  informer.on("update", handle);
  informer.on("delete", (obj) => deleted.push(obj.metadata?.name ?? ""));
  informer.on("error", (e) => errors.push(e));
  return { informer, api, acted, deleted, errors };
}

describe("a watch-driven controller on @kubernetes/client-node against Porch's API", () => {
  let w: ApiWorld;
  let c: ReturnType<typeof autoProposer>;
  const git = gitAs("Bob");
  const revision = (name: string) => c.informer.get(name, "acme");

  beforeAll(async () => {
    w = await apiWorld({ watchPollMs: 100 });
    const kc = new KubeConfig();
    kc.loadFromFile(w.kubeconfig("alice"));
    c = autoProposer(kc);
    await c.informer.start();
  }, 120_000);
  afterAll(async () => {
    await c?.informer.stop();
    await w?.stop();
  });

  it("proposes and labels a draft created through the API, and leaves other repositories' drafts alone", async () => {
    const draft = (repository: string, pkg: string) => ({
      apiVersion: `${GROUP}/${VERSION}`,
      kind: "PackageRevision",
      metadata: { namespace: "acme" },
      spec: { packageName: pkg, workspaceName: "v1", repository, tasks: [{ type: "init", init: {} }] },
    });
    const base = { group: GROUP, version: VERSION, namespace: "acme", plural: PLURAL };
    await c.api.createNamespacedCustomObject({ ...base, body: draft("blueprints", "base") });
    const made = (await c.api.createNamespacedCustomObject({
      ...base,
      body: draft("deploy", "app"),
    })) as Revision;
    expect(made.metadata?.name).toBe("deploy.app.v1");
    // one patch, two writes in git (the proposal, then the label): the informer sees both
    await eventually(
      "the draft proposed and labelled",
      () =>
        revision("deploy.app.v1")?.spec?.lifecycle === "Proposed" &&
        revision("deploy.app.v1")?.metadata?.labels !== undefined,
    );
    expect(revision("deploy.app.v1")?.metadata?.labels).toEqual({ "proposed-by": "controller" });
    const pulls = await w.octokit(w.alice).rest.pulls.list({ owner: "acme", repo: "deploy", state: "open" });
    expect(pulls.data.map((p) => p.head.ref)).toEqual(["drafts/app/v1"]);
    expect(revision("blueprints.base.v1")?.spec?.lifecycle).toBe("Draft");
    expect(c.acted).not.toContain("blueprints.base.v1");
  }, 120_000);

  it("sees a draft made by a plain git push to the forge and proposes it; sees its branch deleted", async () => {
    const dir = join(w.tmp, "deploy-clone");
    await git(w.tmp, "clone", "-q", w.forge.cloneUrl("acme/deploy", w.bob), dir);
    await pushDraft(
      git,
      dir,
      "drafts/pushed/ws1",
      {
        "pushed/Kptfile":
          "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: pushed\ninfo:\n  description: pushed with git\n",
      },
      "pushed: a draft made with git",
    );
    await eventually(
      "the pushed draft proposed and labelled",
      () =>
        revision("deploy.pushed.ws1")?.spec?.lifecycle === "Proposed" &&
        revision("deploy.pushed.ws1")?.metadata?.labels !== undefined,
    );
    expect(revision("deploy.pushed.ws1")?.metadata?.labels).toEqual({ "proposed-by": "controller" });
    expect(c.acted.filter((n) => n === "deploy.pushed.ws1").length).toBeGreaterThanOrEqual(1);

    // a revision deleted outside the API: a delete event, and gone from the informer's cache
    // pushed to blueprints, whose drafts the controller leaves alone
    const blueprints = w.forge.cloneUrl("acme/blueprints", w.bob);
    await pushDraft(
      git,
      dir,
      "drafts/doomed/ws1",
      { "doomed/Kptfile": "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: doomed\n" },
      "doomed",
      { from: "main", to: blueprints },
    );
    await eventually(
      "the doomed draft in the informer",
      () => revision("blueprints.doomed.ws1") !== undefined,
    );
    await git(dir, "push", "-q", blueprints, "--delete", "drafts/doomed/ws1");
    await eventually("the doomed draft's delete event", () => c.deleted.includes("blueprints.doomed.ws1"));
    expect(revision("blueprints.doomed.ws1")).toBeUndefined();
    expect(c.errors).toEqual([]);
  }, 120_000);
});
