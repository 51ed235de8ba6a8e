import { describe, expect, it } from "vitest";
import { applyImageRule, setImage, splitImage } from "../../../src/fn/builtins/set-image.js";
import { defaultRegistry } from "../../../src/fn/registry.js";
import { BuiltinRunner } from "../../../src/fn/runtime/builtin.js";
import { DEFAULT_RUN_OPTIONS } from "../../../src/fn/runtime/types.js";
import { parseResource } from "../../../src/kpt/resource.js";
import { codeBlock } from "../../util/codeblock.js";
import { resource, stream } from "../../util/krm.js";
import { runBuiltin } from "./catalog-harness.js";

const rule = (r: Partial<{ name: string; newName: string; newTag: string; digest: string }>) => ({
  name: "",
  newName: "",
  newTag: "",
  digest: "",
  ...r,
});

const configMap = (name: string, rest: string) => resource("v1", "ConfigMap", name, rest);

describe("set-image", () => {
  it.each([
    ["nginx", { name: "nginx", newTag: "1.21" }, "nginx:1.21"],
    ["nginx:1.20", { name: "nginx", newTag: "1.21" }, "nginx:1.21"],
    ["nginx:1.20", { name: "nginx", newName: "bitnami/nginx" }, "bitnami/nginx:1.20"],
    ["nginx:1.20", { name: "nginx", digest: "sha256:abc" }, "nginx@sha256:abc"],
    ["localhost:5000/app:v1", { name: "localhost:5000/app", newTag: "v2" }, "localhost:5000/app:v2"],
    ["nginx-extra:1.0", { name: "nginx", newTag: "2" }, undefined],
    ["my/nginx:1.0", { name: "nginx", newTag: "2" }, undefined],
  ])("maps %s with %o to %s", (value, r, expected) => {
    expect(applyImageRule(value, rule(r))).toBe(expected);
  });

  it("splits name and tag without mistaking a registry port for a tag", () => {
    expect(splitImage("registry:5000/app")).toEqual({ name: "registry:5000/app", tag: "" });
    expect(splitImage("app@sha256:1")).toEqual({ name: "app", tag: "@sha256:1" });
  });

  it("sets matching container and init container images in pod templates and pods", async () => {
    const deployment = codeBlock`
        annotations:
          config.kubernetes.io/path: deploy.yaml
          config.kubernetes.io/index: '0'
      spec:
        template:
          spec:
            initContainers:
              - name: init
                image: busybox
            containers:
              - name: nginx
                image: "nginx:1.14.2" # pinned
    `;
    const input = stream(
      resource("apps/v1", "Deployment", "my-nginx", deployment),
      resource("v1", "Pod", "pod", "spec:\n  containers:\n    - name: nginx\n      image: nginx\n"),
    );
    const cfg = configMap("c", "data:\n  name: nginx\n  newName: bitnami/nginx\n  newTag: 1.21.4\n");
    const { output, results } = await runBuiltin(setImage, input, cfg);
    expect(output).toBe(
      input
        .replace('"nginx:1.14.2"', '"bitnami/nginx:1.21.4"')
        .replace("image: nginx\n", "image: bitnami/nginx:1.21.4\n"),
    );
    expect(results).toEqual([
      {
        message: "set image from nginx:1.14.2 to bitnami/nginx:1.21.4",
        severity: "info",
        resourceRef: { apiVersion: "apps/v1", kind: "Deployment", name: "my-nginx" },
        field: {
          path: "spec.template.spec.containers.image",
          currentValue: "nginx:1.14.2",
          proposedValue: "bitnami/nginx:1.21.4",
        },
        file: { path: "deploy.yaml", index: 0 },
      },
      expect.objectContaining({ message: "set image from nginx to bitnami/nginx:1.21.4" }),
    ]);
  });

  it("uses additionalImageFields of a SetImage config and never touches CRDs", async () => {
    const input = stream(
      resource("example.com/v1", "App", "app", "spec:\n  image: nginx:1\n"),
      resource(
        "apiextensions.k8s.io/v1",
        "CustomResourceDefinition",
        "apps.example.com",
        "spec:\n  containers:\n    - image: nginx:1\n",
      ),
    );
    const cfg = resource(
      "fn.kpt.dev/v1alpha1",
      "SetImage",
      "c",
      codeBlock`
      image:
        name: nginx
        newTag: "2"
      additionalImageFields:
        - kind: App
          path: spec/image
    `,
    );
    const { output, results } = await runBuiltin(setImage, input, cfg);
    expect(output).toBe(input.replace("image: nginx:1\n", "image: nginx:2\n"));
    expect(results.map((r) => r.message)).toEqual(["set image from nginx:1 to nginx:2"]);
  });

  it("reports when nothing matched", async () => {
    const input =
      "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n    - image: redis\n";
    const cfg = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  name: nginx\n  newTag: x\n";
    const { output, results } = await runBuiltin(setImage, input, cfg);
    expect(output).toBe(input);
    expect(results).toEqual([{ message: "no images changed", severity: "info" }]);
  });

  it.each([
    [
      "apiVersion: v1\nkind: Secret\nmetadata:\n  name: c\n",
      "`functionConfig` must be a `ConfigMap` or `SetImage`",
    ],
    ["apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  newTag: x\n", "missing image name"],
    [
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  name: x\n",
      "missing image newName, newTag, or digest",
    ],
    [
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  name: x\n  newTag: a\n  digest: b\n",
      "image newTag and digest both set",
    ],
    ["apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n", "missing image name"],
  ])("v0.1.1 fails on a bad config with the error alone, no result (%#)", async (cfg, message) => {
    const pod = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n";
    await expect(runBuiltin(setImage, pod, cfg, "v0.1.1")).rejects.toThrow(
      expect.objectContaining({ message, results: [] }),
    );
  });

  it.each([
    ["apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  newTag: x\n", "missing image name"],
    [
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n",
      "unable to get field data from functionConfig",
    ],
  ])("v0.1.0 reports a bad config as an error result (%#)", async (cfg, message) => {
    const pod = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n";
    const { results } = await runBuiltin(setImage, pod, cfg, "v0.1.0");
    expect(results).toEqual([{ message, severity: "error" }]);
  });

  it("v0.1.0's bad config does not fail the step: its image exits 0, so kpt goes on", async () => {
    const pod = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n";
    const cfg = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  newTag: x\n";
    const input = { items: [parseResource(pod)], functionConfig: parseResource(cfg), results: [] };
    const runner = new BuiltinRunner(defaultRegistry());
    const out = await runner.run({ image: "gcr.io/kpt-fn/set-image:v0.1.0" }, input, DEFAULT_RUN_OPTIONS);
    expect(out.results).toEqual([{ message: "missing image name", severity: "error" }]);
    await expect(
      runner.run({ image: "gcr.io/kpt-fn/set-image:v0.1.1" }, { ...input, results: [] }, DEFAULT_RUN_OPTIONS),
    ).rejects.toThrow("missing image name");
  });
});
