import { describe, expect, it } from "vitest";
import type { InjectableResource } from "../../src/variants/injection.js";
import { applyVariantMutations } from "../../src/variants/mutations.js";
import type { PackageVariant } from "../../src/variants/schema.js";
import { codeBlock } from "../util/codeblock.js";
import { variantDoc } from "../util/krm.js";
import { onlyVariant, packageContext } from "./porch/fixtures.js";

function variant(spec = ""): PackageVariant {
  const text = variantDoc(
    "my-pv",
    "{repo: blueprints, package: basens, revision: v2}",
    codeBlock`
      downstream: {repo: cluster-01, package: basens}
  `,
  );
  return onlyVariant(text + spec);
}

const KPTFILE = codeBlock`
  apiVersion: kpt.dev/v1
  kind: Kptfile
  metadata:
    name: basens # the package
    annotations:
      config.kubernetes.io/local-config: "true"
  pipeline:
    mutators:
    - image: ghcr.io/kptdev/krm-functions-catalog/set-labels:v0.2
      configMap:
        tier: backend
`;

const CONTEXT = packageContext("  name: basens\n  stale: yes-please-remove\n");

const ENDPOINTS = codeBlock`
  # filled in per cluster
  apiVersion: v1
  kind: ConfigMap
  metadata:
    name: endpoints
    annotations:
      kpt.dev/config-injection: required
  data:
    api: http://placeholder
  ---
  apiVersion: example.com/v1
  kind: Tuning
  metadata:
    name: tuning
    annotations:
      kpt.dev/config-injection: optional
  spec:
    replicas: 1
`;

const pkg = () =>
  new Map([
    ["Kptfile", KPTFILE],
    ["package-context.yaml", CONTEXT],
    ["endpoints.yaml", ENDPOINTS],
    ["deploy.yaml", "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web # keep me\n"],
  ]);

const injectable: InjectableResource[] = [
  {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "us-east1-endpoints" },
    data: { api: "https://api.us-east1" },
  },
  {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "eu-endpoints" },
    data: { api: "https://api.eu" },
  },
];

describe("applyVariantMutations", () => {
  it("sets and removes package-context keys, leaving the others", () => {
    const v = variant(
      codeBlock`
      packageContext:
        data: {region: us-east1}
        removeKeys: [stale]
    `.replace(/^/gm, "  "),
    );
    const { files, changes } = applyVariantMutations(pkg(), v);
    expect(files.get("package-context.yaml")).toBe(packageContext("  name: basens\n  region: us-east1\n"));
    expect(changes.filter((c) => c.file === "package-context.yaml").map((c) => c.summary)).toEqual([
      "set package context region=us-east1",
      "removed package context key stale",
    ]);
  });

  it("creates package-context.yaml when the package has none", () => {
    const v = variant("  packageContext:\n    data: {region: eu}\n");
    const files = pkg();
    files.delete("package-context.yaml");
    const out = applyVariantMutations(files, v).files.get("package-context.yaml");
    expect(out).toContain("name: kptfile.kpt.dev");
    expect(out).toContain("  name: basens\n  region: eu\n");
  });

  it("prepends pipeline functions with Porch's names, and replaces them on a re-run", () => {
    const v = variant(
      codeBlock`
      pipeline:
        mutators:
        - image: ghcr.io/kptdev/krm-functions-catalog/set-namespace:v0.4
          configMap: {namespace: my-ns}
          name: my-func
        - image: ghcr.io/kptdev/krm-functions-catalog/set-annotations:v0.1
    `.replace(/^/gm, "  "),
    );
    const first = applyVariantMutations(pkg(), v).files.get("Kptfile") as string;
    expect(first).toContain(codeBlock`
      pipeline:
        mutators:
        - image: ghcr.io/kptdev/krm-functions-catalog/set-namespace:v0.4
          name: PackageVariant.my-pv.my-func.0
          configMap:
            namespace: my-ns
        - image: ghcr.io/kptdev/krm-functions-catalog/set-annotations:v0.1
          name: PackageVariant.my-pv..1
        - image: ghcr.io/kptdev/krm-functions-catalog/set-labels:v0.2
          configMap:
            tier: backend
    `);
    expect(first).toContain("name: basens # the package");

    const again = applyVariantMutations(new Map([...pkg(), ["Kptfile", first]]), v);
    expect(again.files.get("Kptfile")).toBe(first);
    expect(again.changes).toEqual([]);

    const fewer = variant(
      "  pipeline:\n    mutators:\n    - image: ghcr.io/kptdev/krm-functions-catalog/set-annotations:v0.1\n",
    );
    const changed = applyVariantMutations(new Map([...pkg(), ["Kptfile", first]]), fewer).files.get(
      "Kptfile",
    ) as string;
    expect(changed.match(/PackageVariant\.my-pv/g)).toEqual(["PackageVariant.my-pv"]);
    expect(changed).toContain("name: PackageVariant.my-pv..0");
    expect(changed).toContain("set-labels:v0.2");
  });

  it("injects the first matching resource into required and optional points, and records conditions", () => {
    const v = variant(
      "  injectors:\n  - {kind: Deployment, name: eu-endpoints}\n  - name: us-east1-endpoints\n",
    );
    const { files, injection, changes } = applyVariantMutations(pkg(), v, injectable);
    expect(files.get("endpoints.yaml")).toBe(codeBlock`
      # filled in per cluster
      apiVersion: v1
      kind: ConfigMap
      metadata:
        name: endpoints
        annotations:
          kpt.dev/config-injection: required
          kpt.dev/injected-resource: us-east1-endpoints
      data:
        api: https://api.us-east1
      ---
      apiVersion: example.com/v1
      kind: Tuning
      metadata:
        name: tuning
        annotations:
          kpt.dev/config-injection: optional
      spec:
        replicas: 1
    `);
    expect(injection.map((r) => [r.conditionType, r.injected, r.message])).toEqual([
      [
        "config.injection.ConfigMap.endpoints",
        true,
        'injected resource "us-east1-endpoints" from the downstream repository',
      ],
      ["config.injection.Tuning.tuning", false, "no injectable resources of type example.com/v1.Tuning"],
    ]);
    const kptfile = files.get("Kptfile") as string;
    expect(kptfile).toContain(codeBlock`
      info:
        readinessGates:
        - conditionType: config.injection.ConfigMap.endpoints
      status:
        conditions:
        - type: config.injection.ConfigMap.endpoints
          status: "True"
          reason: ConfigInjected
          message: injected resource "us-east1-endpoints" from the downstream repository
        - type: config.injection.Tuning.tuning
          status: "False"
          reason: NoResourceSelected
          message: no injectable resources of type example.com/v1.Tuning
    `);
    expect(changes).toContainEqual({
      file: "endpoints.yaml",
      summary: "injected data of ConfigMap us-east1-endpoints into ConfigMap/endpoints",
    });
    const again = applyVariantMutations(files, v, injectable);
    expect(again.changes).toEqual([]);
    expect(again.files).toEqual(files);
  });

  it("refuses a package whose injection annotation is neither required nor optional", () => {
    const files = pkg();
    files.set("endpoints.yaml", ENDPOINTS.replace("required", "always"));
    expect(() => applyVariantMutations(files, variant(), injectable)).toThrow(
      /ConfigMap\/endpoints has invalid "kpt.dev\/config-injection" annotation value of "always"/,
    );
  });

  it("writes labels and annotations on clone only, and always its tracking annotations", () => {
    const v = variant("  labels: {team: platform}\n  annotations: {owner: sre}\n  deletionPolicy: orphan\n");
    const cloned = applyVariantMutations(pkg(), v, [], { mode: "clone" }).files.get("Kptfile") as string;
    expect(cloned).toContain("  labels:\n    team: platform\n");
    expect(cloned).toContain("    owner: sre\n");
    expect(cloned).toContain(
      "    porchlight.dev/package-variant: my-pv\n    porchlight.dev/deletion-policy: orphan\n",
    );
    expect(cloned).toMatch(/porchlight.dev\/variant-spec-hash: [0-9a-f]{16}\n/);
    const updated = applyVariantMutations(pkg(), v, [], { mode: "update" }).files.get("Kptfile") as string;
    expect(updated).not.toContain("team: platform");
  });

  it.for(["clone", "update"] as const)(
    "leaves the upstream's catalog channels out of the downstream Kptfile (%s), keeping its other annotations",
    (mode) => {
      const files = pkg();
      const kf = (files.get("Kptfile") as string).replace(
        '    config.kubernetes.io/local-config: "true"\n',
        '    config.kubernetes.io/local-config: "true"\n    porchlight.dev/channels: stable,beta\n    team: db\n',
      );
      expect(kf).toContain("porchlight.dev/channels");
      files.set("Kptfile", kf);
      const result = applyVariantMutations(files, variant(), [], { mode });
      const out = result.files.get("Kptfile") as string;
      expect(out).not.toContain("porchlight.dev/channels");
      expect(out).toContain("    team: db\n");
      expect(result.changes.map((c) => c.summary)).toContain(
        "left out porchlight.dev/channels: the upstream's catalog metadata stays upstream",
      );
      expect(applyVariantMutations(result.files, variant(), [], { mode }).files.get("Kptfile")).toBe(out);
    },
  );

  it("leaves data.name to the clone, as Porch's PackageVariant does: only the variant's data keys are set", () => {
    const v = variant();
    const renamed = {
      ...v,
      spec: { ...v.spec, downstream: { ...v.spec.downstream, package: "tenants/ns-a" } },
    };
    const result = applyVariantMutations(pkg(), renamed, [], { mode: "clone" });
    const context = result.files.get("package-context.yaml") as string;
    expect(context).toContain("  name: basens\n");
    expect(context).not.toContain("ns-a");
    // A variant without packageContext leaves the file as it is.
    const bare = { ...renamed, spec: { ...renamed.spec, packageContext: undefined } };
    const files = pkg();
    files.set(
      "package-context.yaml",
      "# not the ConfigMap\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: other\n",
    );
    expect(applyVariantMutations(files, bare, [], { mode: "clone" }).files.get("package-context.yaml")).toBe(
      files.get("package-context.yaml"),
    );
    // Applied again, nothing changes.
    const again = applyVariantMutations(result.files, renamed, [], { mode: "update" });
    expect(again.files.get("package-context.yaml")).toBe(context);
  });

  it("keeps a clone's `# kpt-merge:` comment on its metadata line, where kpt writes it and an update looks for it", () => {
    const files = pkg();
    const cloned = (files.get("package-context.yaml") as string).replace(
      "metadata:\n",
      "metadata: # kpt-merge: /kptfile.kpt.dev\n",
    );
    files.set("package-context.yaml", cloned);
    const out = applyVariantMutations(files, variant("  packageContext:\n    data: {region: eu}\n"), [], {
      mode: "clone",
    }).files.get("package-context.yaml") as string;
    expect(out).toContain("metadata: # kpt-merge: /kptfile.kpt.dev\n  name: kptfile.kpt.dev\n");
    expect(out.match(/kpt-merge/g)).toHaveLength(1);
    expect(out).toContain("  region: eu\n");
  });

  it("returns untouched files byte for byte", () => {
    const { files } = applyVariantMutations(pkg(), variant());
    expect(files.get("deploy.yaml")).toBe(pkg().get("deploy.yaml"));
    expect(files.get("endpoints.yaml")).toBe(ENDPOINTS);
  });
});
