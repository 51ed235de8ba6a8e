import { describe, expect, it } from "vitest";
import { searchReplace } from "../../../src/fn/builtins/search-replace.js";
import { pathMatches } from "../../../src/fn/builtins/util/catalog-path-match.js";
import { codeBlock } from "../../util/codeblock.js";
import { runBuiltin } from "./catalog-harness.js";

const cfg = (data: Record<string, string>) =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n${Object.entries(data)
    .map(([k, v]) => `  ${k}: ${JSON.stringify(v)}`)
    .join("\n")}\n`;

const deployment = codeBlock`
  apiVersion: apps/v1
  kind: Deployment
  metadata:
    name: my-nginx
    annotations:
      config.kubernetes.io/path: deploy.yaml
  spec:
    replicas: 3
    template:
      spec:
        containers:
          - name: nginx
            image: "nginx:1.14.1"
          - name: sidecar
            image: busybox:1.36 # helper
`;

describe("search-replace", () => {
  it.each([
    ["spec.replicas", "spec.replicas", true],
    ["spec.*", "spec.replicas", true],
    ["spec.*", "spec.template.spec", false],
    ["**.image", "spec.template.spec.containers[1].image", true],
    ["spec.**.containers[*].image", "spec.template.spec.containers[0].image", true],
    ["spec.**.containers[1].image", "spec.template.spec.containers[0].image", false],
    ["**.*[0].name", "spec.containers[0].name", true],
  ])("path pattern %s against %s is %s", (pattern, path, expected) => {
    expect(pathMatches(pattern, path)).toBe(expected);
  });

  it("matches by value and reports each match with its file and field", async () => {
    const { output, results } = await runBuiltin(searchReplace, deployment, cfg({ "by-value": "my-nginx" }));
    expect(output).toBe(deployment);
    expect(results).toEqual([
      {
        message: 'Matched field value "my-nginx"',
        field: { path: "metadata.name" },
        file: { path: "deploy.yaml" },
      },
    ]);
  });

  it("replaces with capture groups of by-value-regex under a path pattern, keeping quotes and comments", async () => {
    const { output, results } = await runBuiltin(
      searchReplace,
      deployment,
      cfg({
        "by-path": "**.image",
        "by-value-regex": "(nginx|busybox):(.*)",
        "put-value": `mirror/\${1}:\${2}`,
      }),
    );
    expect(output).toBe(
      deployment
        .replace('"nginx:1.14.1"', '"mirror/nginx:1.14.1"')
        .replace("busybox:1.36 # helper", "mirror/busybox:1.36 # helper"),
    );
    expect(results.map((r) => r.message)).toEqual([
      'Mutated field value to "\\"mirror/nginx:1.14.1\\""',
      'Mutated field value to "mirror/busybox:1.36 # helper"',
    ]);
  });

  it("reads by-value-regex as Go does: flags, Unicode classes, and no backtracking for ever", async () => {
    const { output } = await runBuiltin(
      searchReplace,
      deployment,
      cfg({
        "by-path": "**.image",
        "by-value-regex": "(?i)^\\pL+:(1\\.14\\..*)$",
        "put-value": `NGINX:\${1}`,
      }),
    );
    expect(output).toContain('image: "NGINX:1.14.1"');
    expect(output).toContain("image: busybox:1.36 # helper");
    const spin = `${"a".repeat(40)}!`;
    const { results } = await runBuiltin(
      searchReplace,
      deployment.replace("my-nginx", spin),
      cfg({ "by-value-regex": "(a+)+$", "put-value": "b" }),
    );
    expect(results.map((r) => r.message)).toEqual(["no matches"]);
  });

  it("sets an absolute path, creating it, with the type its text reads as", async () => {
    const { output, results } = await runBuiltin(
      searchReplace,
      deployment,
      cfg({ "by-path": "spec.strategy.rollingUpdate.maxSurge", "put-value": "2" }),
    );
    expect(output).toBe(`${deployment}  strategy:\n    rollingUpdate:\n      maxSurge: 2\n`);
    expect(results).toEqual([
      {
        message: 'Mutated field value to "2"',
        field: { path: "spec.strategy.rollingUpdate.maxSurge" },
        file: { path: "deploy.yaml" },
      },
    ]);
    const replicas = await runBuiltin(
      searchReplace,
      deployment,
      cfg({ "by-path": "spec.replicas", "put-value": "5" }),
    );
    expect(replicas.output).toBe(deployment.replace("replicas: 3", "replicas: 5"));
  });

  it("puts a comment on matched fields and after the key of a matched sequence", async () => {
    const input =
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  env: dev\nenvs:\n  - dev\n  - stage\n";
    const one = await runBuiltin(
      searchReplace,
      input,
      cfg({ "by-value": "dev", "by-path": "data.env", "put-comment": `kpt-set: \${env}` }),
    );
    expect(one.output).toBe(input.replace("env: dev\n", `env: dev # kpt-set: \${env}\n`));
    const seq = await runBuiltin(
      searchReplace,
      input,
      cfg({ "by-path": "envs", "put-comment": `kpt-set: \${envs}` }),
    );
    expect(seq.output).toBe(input.replace("envs:\n", `envs: # kpt-set: \${envs}\n`));
  });

  it("leaves a matched flow sequence in block style under the commented key", async () => {
    const input = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\nenvs: [dev, stage]\n";
    const { output, results } = await runBuiltin(
      searchReplace,
      input,
      cfg({ "by-path": "envs", "put-comment": `kpt-set: \${envs}` }),
    );
    expect(output).toBe(
      input.replace("envs: [dev, stage]\n", `envs: # kpt-set: \${envs}\n  - dev\n  - stage\n`),
    );
    expect(results.map((r) => r.message)).toEqual(['Mutated field value to "[dev, stage]"']);
  });

  it.each([
    ["v0.1.0", []],
    ["v0.1.1", [{ message: "no matches" }]],
    ["v0.2.0", [{ message: "no matches" }]],
    ["v0.2.3", [{ message: "no matches" }]],
  ])("with no match, %s reports %o", async (release, expected) => {
    const { results } = await runBuiltin(searchReplace, deployment, cfg({ "by-value": "nothing" }), release);
    expect(results).toEqual(expected);
  });

  const quoted = (names: string[]) => `[${names.map((n) => `\\"${n}\\"`).join(" ")}]`;
  it.each([
    ["v0.1.0", { "put-value": "x" }, undefined],
    [
      "v0.1.1",
      { "put-value": "x" },
      'at least one of [\\"by-value\\", \\"by-value-regex\\", \\"by-path\\"] must be provided',
    ],
    ["v0.2.0", { "put-value": "x" }, undefined],
    [
      "v0.2.0",
      { "by-value": "a", "by-value-regex": "b" },
      'only one of [\\"by-value\\", \\"by-value-regex\\"] can be provided',
    ],
    ["v0.1.0", { "by-name": "a", "by-value": "nothing" }, undefined],
    [
      "v0.1.1",
      { "by-name": "a" },
      `invalid matcher \\"by-name\\", must be one of ${quoted(["by-value", "by-value-regex", "by-path", "put-value", "put-comment"])}`,
    ],
    [
      "v0.2.0",
      { "by-name": "a" },
      `invalid matcher \\"by-name\\", must be one of ${quoted(["by-value", "by-file-path", "by-value-regex", "by-path", "put-value", "put-comment"])}`,
    ],
    [
      "v0.1.1",
      { "by-file-path": "*.yaml", "by-value": "a" },
      `invalid matcher \\"by-file-path\\", must be one of ${quoted(["by-value", "by-value-regex", "by-path", "put-value", "put-comment"])}`,
    ],
    ["v0.2.0", { "by-value-regex": "(.*)", "put-value": `\${2}` }, "unable to resolve capture groups"],
    // Go's regexp (RE2) reads the expression: its syntax, its words for what it refuses
    ["v0.2.0", { "by-value-regex": "(nginx" }, "error parsing regexp: missing closing ): `(nginx`"],
    [
      "v0.2.0",
      { "by-value-regex": "nginx(?=:)" },
      "error parsing regexp: invalid or unsupported Perl syntax: `(?=`",
    ],
    ["v0.2.0", { "by-value-regex": "x{1001}" }, "error parsing regexp: invalid repeat count: `{1001}`"],
  ])("%s with %o fails with %s", async (release, data, message) => {
    const { results } = await runBuiltin(searchReplace, deployment, cfg(data), release);
    const errors = results.filter((r) => r.severity === "error");
    expect(errors).toEqual(
      message === undefined
        ? []
        : [{ message: `failed to perform search-replace operation: "${message}"`, severity: "error" }],
    );
  });

  it.each([
    ["**/deploy.yaml", 'Mutated field value to "4"', "replicas: 4"],
    ["other/*.yaml", undefined, "replicas: 3"],
  ])("v0.2.0 searches only files matching by-file-path %s", async (glob, message, replicas) => {
    const { output, results } = await runBuiltin(
      searchReplace,
      deployment,
      cfg({ "by-file-path": glob, "by-path": "spec.replicas", "put-value": "4" }),
      "v0.2.0",
    );
    expect(output).toContain(replicas);
    expect(results.map((r) => r.message)).toEqual([message ?? "no matches"]);
  });
});
