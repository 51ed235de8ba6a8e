import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { useRpkgWorld } from "./world.js";

const R = "--repository=acme/blueprints";
const NAME = "blueprints.app.w1";

/** Porch renders what `rpkg push` sends, records the outcome in the Kptfile, and refuses a failed render. */
describe("rpkg push renders as Porch does", () => {
  const w = useRpkgWorld();
  beforeAll(async () => {
    // where the namespace acme keeps its revisions' annotations (an owner of acme makes it once)
    await w.forge.createRepo("acme/.porchlight", { autoInit: true });
    w.forge.setPermission("acme/.porchlight", "alice", "write");
    expect((await w.rpkg(w.alice, ["init", "app", R, "--workspace=w1"])).code).toBe(0);
  });

  const pull = async (dir: string) => {
    const target = join(w.tmp, dir);
    expect((await w.rpkg(w.alice, ["pull", NAME, target, R])).code).toBe(0);
    return target;
  };
  const kptfile = (dir: string) => parse(readFileSync(join(dir, "Kptfile"), "utf8"));
  const addMutator = (dir: string, image: string) => {
    const kf = kptfile(dir);
    kf.pipeline = { mutators: [...(kf.pipeline?.mutators ?? []), { image }] };
    writeFileSync(join(dir, "Kptfile"), stringify(kf));
  };

  it("init records a successful render in the Kptfile", async () => {
    const dir = await pull("after-init");
    expect(kptfile(dir).status.conditions).toEqual([
      { type: "Rendered", status: "True", reason: "RenderSuccess" },
    ]);
  });

  it("push runs the pipeline and pushes its output, with each step in renderStatus", async () => {
    const dir = await pull("with-pipeline");
    writeFileSync(join(dir, "cm.yaml"), "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n");
    appendFileSync(
      join(dir, "Kptfile"),
      "pipeline:\n  mutators:\n  - image: ghcr.io/kptdev/krm-functions-catalog/set-namespace:v0.4.1\n    configMap:\n      namespace: prod\n",
    );
    const r = await w.rpkg(w.alice, ["push", NAME, dir, R]);
    expect(r).toMatchObject({ code: 0, stdout: `${NAME} pushed\n` });
    // what porchctl push prints of the render it caused
    expect(r.stderr).toMatch(
      /^\[RUNNING\] "ghcr\.io\/kptdev\/krm-functions-catalog\/set-namespace:v0\.4\.1" \n\[Results\]: \[info\]: namespace "" updated to "prod", 1 value\(s\) changed\n$/,
    );
    const back = await pull("rendered");
    expect(readFileSync(join(back, "cm.yaml"), "utf8")).toContain("namespace: prod");
    const kf = kptfile(back);
    expect(kf.status.conditions).toEqual([{ type: "Rendered", status: "True", reason: "RenderSuccess" }]);
    expect(kf.status.renderStatus.mutationSteps).toEqual([
      expect.objectContaining({
        image: "ghcr.io/kptdev/krm-functions-catalog/set-namespace:v0.4.1",
        exitCode: 0,
      }),
    ]);
  });

  it("refuses a push whose render fails, and the draft keeps what it had", async () => {
    const dir = await pull("broken");
    addMutator(dir, "quay.io/nobody/no-such-function:v1");
    const r = await w.rpkg(w.alice, ["push", NAME, dir, R]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^Error: error rendering package in kpt function pipeline\. Package NOT pushed to remote\. Fix locally \(until 'kpt fn render' succeeds\) and retry\. Details: .*no-such-function/,
    );
    const back = await pull("still-good");
    expect(readFileSync(join(back, "Kptfile"), "utf8")).not.toContain("no-such-function");
  });

  it("with porch.kpt.dev/push-on-render-failure=true it pushes anyway, the failure recorded", async () => {
    const a = await w.rpkg(w.alice, ["annotate", NAME, "porch.kpt.dev/push-on-render-failure=true", R]);
    expect(a.stderr).toBe("");
    expect(a).toMatchObject({ code: 0, stdout: `packagerevision.porch.kpt.dev/${NAME} annotated\n` });
    // a second value needs --overwrite, as kubectl annotate does
    const again = await w.rpkg(w.alice, ["annotate", NAME, "porch.kpt.dev/push-on-render-failure=false", R]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("--overwrite is false");
    const dir = await pull("broken-anyway");
    addMutator(dir, "quay.io/nobody/no-such-function:v1");
    const r = await w.rpkg(w.alice, ["push", NAME, dir, R]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("Package pushed to remote despite render failure");
    const kf = kptfile(await pull("pushed-broken"));
    expect(JSON.stringify(kf.pipeline)).toContain("no-such-function");
    expect(kf.status.conditions).toEqual([
      expect.objectContaining({ type: "Rendered", status: "False", reason: "RenderFailed" }),
    ]);
  });

  it("with kpt.dev/save-on-render-failure in the Kptfile too, it pushes what the functions that ran made", async () => {
    // Porch's TestRenderFailureWithSaveAndPushAnnotations: a working mutator, then one that fails; the
    // revision is annotated push-on-render-failure (the case above)
    const dir = await pull("save-partial");
    writeFileSync(
      join(dir, "cm2.yaml"),
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm2\ndata:\n  key: before-render\n",
    );
    const kf = kptfile(dir);
    kf.metadata.annotations = { ...kf.metadata.annotations, "kpt.dev/save-on-render-failure": "true" };
    kf.pipeline = {
      mutators: [
        {
          image: "ghcr.io/kptdev/krm-functions-catalog/set-annotations:v0.1.4",
          configMap: { "render-test": "partial" },
        },
        { image: "quay.io/nobody/no-such-function:v1" },
      ],
    };
    writeFileSync(join(dir, "Kptfile"), stringify(kf));
    const r = await w.rpkg(w.alice, ["push", NAME, dir, R]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("Package pushed to remote despite render failure");
    const back = await pull("saved-partial");
    expect(parse(readFileSync(join(back, "cm2.yaml"), "utf8"))).toEqual({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "cm2", annotations: { "render-test": "partial" } },
      data: { key: "before-render" },
    });
    const saved = kptfile(back);
    expect(saved.metadata.annotations["kpt.dev/save-on-render-failure"]).toBe("true");
    expect(saved.status.conditions).toEqual([
      expect.objectContaining({ type: "Rendered", status: "False", reason: "RenderFailed" }),
    ]);
  });

  it("a pulled list without a resourceVersion is refused, as Porch refuses it", async () => {
    const list = (await w.rpkg(w.alice, ["pull", NAME, R])).stdout.replace(
      /\n\s+resourceVersion: .*\n/,
      "\n",
    );
    expect(list).toContain("KptRevisionMetadata");
    const r = await w.rpkg(w.alice, ["push", NAME, "-", R], { stdin: list });
    expect(r).toMatchObject({
      code: 1,
      stderr: "Error: Internal error occurred: resourceVersion must be specified for an update \n",
    });
  });
});
