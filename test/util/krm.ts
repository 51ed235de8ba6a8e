import type { PackageVariant } from "../../src/variants/schema.js";
import { codeBlock } from "./codeblock.js";
/**
 * The package files the tests build again and again — a Kptfile, a ConfigMap, a PackageVariant, a set
 * selecting repositories by topic — written once, so a test names only what makes its case.
 */

/**
 * A resource of `kind` (in `apiVersion`) named `name`: the four lines every inline resource opens with.
 * `rest` (YAML lines, each ending in a newline) follows its `metadata.name`: more metadata indented by
 * two, then the resource's other fields.
 */
export const resource = (apiVersion: string, kind: string, name: string, rest = "") =>
  `apiVersion: ${apiVersion}\nkind: ${kind}\nmetadata:\n  name: ${name}\n${rest}`;

/** Resources as one stream, `---` between them, as a package's items are written. */
export const stream = (...docs: string[]) => docs.join("---\n");

/**
 * `key:` holding `lines` (YAML, each ending in a newline), the whole indented by `indent` spaces: a
 * resource's labels or annotations under `metadata` (indent 2), or deeper.
 */
export const nested = (key: string, indent: number, lines: string) =>
  `${key}:\n${lines.replace(/^(?=.)/gm, "  ")}`.replace(/^(?=.)/gm, " ".repeat(indent));

/** A Kptfile of package `name`; `rest` (YAML lines, each ending in a newline) follows its `metadata.name`. */
export const kptfile = (name: string, rest = "") => resource("kpt.dev/v1", "Kptfile", name, rest);

/** A ConfigMap `name` whose data is `data`, each value double-quoted, in order. */
export const configMap = (name: string, data: Record<string, string>) =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n${Object.entries(data)
    .map(([k, v]) => `  ${k}: "${v}"\n`)
    .join("")}`;

/** The ConfigMap `settings` holding `v` (the package of most fan-out tests). */
export const settings = (v: string) => configMap("settings", { v });

/** A PackageVariant, its fields in the order docs/variants.md writes them. */
export interface Variant {
  name: string;
  /** Flow-style labels, as written (`{env: dev}`). */
  labels?: string;
  /** The upstream package. */
  upstream: string;
  /** The upstream revision it pins; without it, it follows channel `stable`. */
  revision?: string;
  /** The downstream repository. */
  repo: string;
  /** The downstream package (default: the upstream's name). */
  package?: string;
  /** YAML lines after the downstream (indented under `spec:`). */
  extra?: string;
}

export const packageVariant = (v: Variant) => `apiVersion: config.porch.kpt.dev/v1alpha1
kind: PackageVariant
metadata:
  name: ${v.name}
${v.labels ? `  labels: ${v.labels}\n` : ""}spec:
  upstream: {package: ${v.upstream}, ${v.revision ? `revision: ${v.revision}` : "channel: stable"}}
  downstream: {repo: ${v.repo}, package: ${v.package ?? v.upstream}}
${v.extra ?? ""}`;

/** `spec` (YAML lines, each ending in a newline) indented under a resource's `spec:`. */
const underSpec = (spec: string) =>
  spec
    .split("\n")
    .map((l) => (l === "" ? l : `  ${l}`))
    .join("\n");

/**
 * A PackageVariant `name` as the variant tests write one: its metadata in flow style, its `upstream`
 * (flow YAML, braces included) first in `spec`, then `spec`'s other lines (each ending in a newline).
 */
export const variantDoc = (name: string, upstream: string, spec = "") =>
  `apiVersion: config.porch.kpt.dev/v1alpha1\nkind: PackageVariant\nmetadata: {name: ${name}}\nspec:\n  upstream: ${upstream}\n${underSpec(spec)}`;

/** A PackageVariantSet `name`, written as variantDoc writes a PackageVariant. */
export const variantSetDoc = (name: string, upstream: string, spec = "") =>
  `apiVersion: config.porch.kpt.dev/v1alpha2\nkind: PackageVariantSet\nmetadata: {name: ${name}}\nspec:\n  upstream: ${upstream}\n${underSpec(spec)}`;

/** A PackageVariantSet `name` fanning `upstream` (channel stable) out to the repositories of topic `topic`. */
export const topicSet = (
  name: string,
  upstream: string,
  topic: string,
) => `apiVersion: config.porch.kpt.dev/v1alpha2
kind: PackageVariantSet
metadata:
  name: ${name}
spec:
  upstream: {package: ${upstream}, channel: stable}
  targets:
  - repositorySelector:
      topics: [${topic}]
`;

/** A Kptfile's `pipeline:` of mutators, each an image with an inline configMap (its values raw YAML). */
export const pipeline = (...steps: [image: string, config: Record<string, string>][]) =>
  `pipeline:\n  mutators:\n${steps
    .map(
      ([image, config]) =>
        `    - image: ${image}\n      configMap:\n${Object.entries(config)
          .map(([k, v]) => `        ${k}: ${v}\n`)
          .join("")}`,
    )
    .join("")}`;

/** Package `name`'s Kptfile whose pipeline sets nginx's tag to 1.27 (the catalog's set-image v0.1). */
export const nginxKptfile = (name = "web") =>
  kptfile(
    name,
    pipeline(["ghcr.io/kptdev/krm-functions-catalog/set-image:v0.1", { name: "nginx", newTag: '"1.27"' }]),
  );

/** A Deployment `name` whose container `app` runs `nginx:<tag>`; `extra` (YAML lines) follows it. */
export const nginxDeployment = (tag: string, name = "web", extra = "") => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
spec:
  template:
    spec:
      containers:
        - name: app
          image: nginx:${tag}
${extra}`;

/** A StarlarkRun `name`, local-config (kept out of the package), running `source` (its lines, unindented). */
const starlarkRun = (name: string, source: string) => `apiVersion: fn.kpt.dev/v1alpha1
kind: StarlarkRun
metadata:
  name: ${name}
  annotations:
    config.kubernetes.io/local-config: "true"
source: |
${source
  .split("\n")
  .map((l) => `  ${l}`)
  .join("\n")}
`;

/** The guardrail `no-privileged`: fails on a ConfigMap whose data says `privileged: "true"`. */
export const NO_PRIVILEGED = starlarkRun(
  "no-privileged",
  `for r in ctx.resource_list["items"]:
  if r["kind"] == "ConfigMap" and r.get("data", {}).get("privileged") == "true":
    fail("ConfigMap " + r["metadata"]["name"] + " asks for privileged mode")`,
);

/** A validator `name` that fails on a ConfigMap whose `a` is "bad". */
export const noBadValue = (name: string) =>
  starlarkRun(
    name,
    `for r in ctx.resource_list["items"]:
  if r["kind"] == "ConfigMap" and r["data"].get("a") == "bad":
    fail("ConfigMap " + r["metadata"]["name"] + " has a bad value")`,
  );

/** The Kptfile metadata lines putting the package on `channels` (porchlight's annotation). */
export const onChannels = (channels: string) => `  annotations:\n    porchlight.dev/channels: ${channels}\n`;

/**
 * Tagged template: a PackageVariant named `a` whose `spec:` is the block (written unindented, in
 * `codeBlock` style), for tests whose case is the spec alone.
 */
export function variantSpec(strings: TemplateStringsArray, ...values: unknown[]): string {
  const spec = codeBlock(strings, ...values)
    .split("\n")
    .map((l) => (l === "" ? l : `  ${l}`))
    .join("\n");
  return `apiVersion: config.porch.kpt.dev/v1alpha1\nkind: PackageVariant\nmetadata: {name: a}\nspec:\n${spec}`;
}

/**
 * A PackageVariant as parsed (Porch's defaults filled in): `name` follows basens on channel stable into
 * the repository `name`, labelled `env`.
 */
export const envVariant = (name: string, env: string): PackageVariant => ({
  apiVersion: "config.porch.kpt.dev/v1alpha1",
  kind: "PackageVariant",
  metadata: { name, labels: { env } },
  spec: {
    upstream: { repo: "blueprints", package: "basens", channel: "stable" },
    downstream: { repo: name, package: "basens" },
    adoptionPolicy: "adoptNone",
    deletionPolicy: "delete",
    paused: false,
  },
});
