// biome-ignore-all lint/suspicious/noTemplateCurlyInString: kpt setter comments are written `${name}`
import { describe, expect, it } from "vitest";
import { parseDocument } from "yaml";
import { applySetters } from "../../../src/fn/builtins/apply-setters.js";
import { FunctionError, type FunctionResult, type ResourceList } from "../../../src/fn/types.js";
import { detectSeqIndent, formatDocuments } from "../../../src/kpt/format.js";
import { codeBlock } from "../../util/codeblock.js";

async function run(input: string, config: string): Promise<{ output: string; results: FunctionResult[] }> {
  const texts = input.split(/^---\n/m);
  const items = texts.map((text) => parseDocument(text));
  const indents = items.map((doc, i) => detectSeqIndent(doc, texts[i] ?? ""));
  const rl: ResourceList = { items, functionConfig: parseDocument(config), results: [] };
  const out = await applySetters.run(rl, {});
  // Written with the kpt formatter, as a render writes the files.
  return { output: formatDocuments(out.items, indents), results: out.results };
}

async function runError(input: string, config: string): Promise<FunctionError> {
  try {
    await run(input, config);
  } catch (err) {
    if (err instanceof FunctionError) return err;
    throw err;
  }
  throw new Error("expected the function to fail");
}

describe("apply-setters", () => {
  it.each([
    {
      name: "sets a name and a label from the same setter",
      config: "data:\n  app: my-app\n",
      input: codeBlock`
        apiVersion: v1
        kind: Service
        metadata:
          name: myService # kpt-set: \${app}
        ---
        apiVersion: apps/v1
        kind: Deployment
        metadata:
          labels:
            app: mungebot # kpt-set: \${app}
          name: mungebot
      `,
      expected: codeBlock`
        apiVersion: v1
        kind: Service
        metadata:
          name: my-app # kpt-set: \${app}
        ---
        apiVersion: apps/v1
        kind: Deployment
        metadata:
          labels:
            app: my-app # kpt-set: \${app}
          name: mungebot
      `,
    },
    {
      name: "fills a pattern of several setters",
      config: "data:\n  image: ubuntu\n  tag: 1.8.0\n",
      input: codeBlock`
        apiVersion: apps/v1
        kind: Deployment
        spec:
          template:
            spec:
              containers:
                - name: nginx
                  image: nginx:1.7.9 # kpt-set: \${image}:\${tag}
      `,
      expected: codeBlock`
        apiVersion: apps/v1
        kind: Deployment
        spec:
          template:
            spec:
              containers:
                - name: nginx
                  image: ubuntu:1.8.0 # kpt-set: \${image}:\${tag}
      `,
    },
    {
      name: "keeps the current value of a reference that has no setter value",
      config: "data:\n  image: ubuntu\n",
      input: "image: nginx:1.7.9 # kpt-set: ${image}:${tag}\n",
      expected: "image: ubuntu:1.7.9 # kpt-set: ${image}:${tag}\n",
    },
    {
      name: "derives values around dots in a pattern",
      config: "data:\n  domain: demo\n  tld: io\n",
      input: "host: my-app-layer.dev.example.com # kpt-set: my-app-layer.${stage}.${domain}.${tld}\n",
      expected: "host: my-app-layer.dev.demo.io # kpt-set: my-app-layer.${stage}.${domain}.${tld}\n",
    },
    {
      name: "handles special characters in setter names and values",
      config: 'data:\n  image-~!@#$%^&*()<>?"|: ubuntu-~!@#$%^&*()<>?"|\n',
      input: 'image: nginx:1.7.9 # kpt-set: ${image-~!@#$%^&*()<>?"|}:${tag}\n',
      expected: 'image: ubuntu-~!@#$%^&*()<>?"|:1.7.9 # kpt-set: ${image-~!@#$%^&*()<>?"|}:${tag}\n',
    },
    {
      name: "leaves fields alone when no setter of their pattern is given",
      config: "data:\n  project: my-project-foo\n",
      input: "image: nginx:1.7.9 # kpt-set: ${image}:${tag}\n",
      expected: "image: nginx:1.7.9 # kpt-set: ${image}:${tag}\n",
    },
    {
      name: "writes numbers and booleans unquoted, as kyaml does",
      config: 'data:\n  replicas: "3"\n  enabled: "true"\n  ratio: "1.10"\n  mode: "0644"\n  big: "1e3"\n',
      input: codeBlock`
        replicas: 1 # kpt-set: \${replicas}
        enabled: false # kpt-set: \${enabled}
        ratio: 0.5 # kpt-set: \${ratio}
        mode: x # kpt-set: \${mode}
        big: x # kpt-set: \${big}
        quoted: "1" # kpt-set: \${replicas}
      `,
      expected: codeBlock`
        replicas: 3 # kpt-set: \${replicas}
        enabled: true # kpt-set: \${enabled}
        ratio: 1.10 # kpt-set: \${ratio}
        mode: 0644 # kpt-set: \${mode}
        big: 1e3 # kpt-set: \${big}
        quoted: "3" # kpt-set: \${replicas}
      `,
    },
    {
      name: "quotes a value that cannot be plain",
      config: 'data:\n  cmd: "a: b"\n  star: "*x"\n',
      input: "cmd: x # kpt-set: ${cmd}\nstar: y # kpt-set: ${star}\n",
      expected: "cmd: 'a: b' # kpt-set: ${cmd}\nstar: '*x' # kpt-set: ${star}\n",
    },
    {
      name: "replaces the items of an array setter",
      config: "data:\n  images: |\n    - ubuntu\n    - hbase\n",
      input: codeBlock`
        spec:
          images: # kpt-set: \${images}
            - nginx
            - ubuntu
      `,
      expected: codeBlock`
        spec:
          images: # kpt-set: \${images}
            - ubuntu
            - hbase
      `,
    },
    {
      name: 'sets empty values: scalars become "", arrays []',
      config: "data:\n  app: \"\"\n  ns: ~\n  image: ''\n  env: \"\"\n  roles: ''\n",
      input: codeBlock`
        metadata:
          name: myService # kpt-set: \${app}
          namespace: "foo" # kpt-set: \${ns}
        image: nginx:1.7.1 # kpt-set: \${image}:\${tag}
        env: # kpt-set: \${env}
          - foo
          - bar
        roles: [dev, prod] # kpt-set: \${roles}
      `,
      expected: codeBlock`
        metadata:
          name: "" # kpt-set: \${app}
          namespace: "" # kpt-set: \${ns}
        image: :1.7.1 # kpt-set: \${image}:\${tag}
        env: [] # kpt-set: \${env}
        roles: [] # kpt-set: \${roles}
      `,
    },
    {
      name: "sets non-empty values over empty ones, arrays in block style",
      config:
        'data:\n  app: myService\n  image: nginx\n  tag: 1.7.1\n  env: "[foo, bar]"\n  roles: |\n    - dev\n    - prod\n',
      input: codeBlock`
        metadata:
          name: "" # kpt-set: \${app}
        image: :1.7.1 # kpt-set: \${image}:\${tag}
        env: [] # kpt-set: \${env}
        roles: [] # kpt-set: \${roles}
      `,
      expected: codeBlock`
        metadata:
          name: "myService" # kpt-set: \${app}
        image: nginx:1.7.1 # kpt-set: \${image}:\${tag}
        env: # kpt-set: \${env}
        - foo
        - bar
        roles: # kpt-set: \${roles}
        - dev
        - prod
      `,
    },
    {
      name: "reads the typed ApplySetters config",
      config: codeBlock`
        apiVersion: fn.kpt.dev/v1alpha1
        kind: ApplySetters
        metadata:
          name: setters
        setters:
          - name: app
            value: typed
      `,
      input: "name: x # kpt-set: ${app}\n",
      expected: "name: typed # kpt-set: ${app}\n",
    },
  ])("$name", async ({ input, config, expected }) => {
    const { output } = await run(input, config);
    expect(output).toBe(expected);
  });

  it("reports each change with its value, field path and file, array setters of a mapping first", async () => {
    const input = codeBlock`
      apiVersion: v1
      kind: MyKind
      metadata:
        name: the-map # kpt-set: \${name}
        annotations:
          config.kubernetes.io/path: resources.yaml
      environments: # kpt-set: \${env}
        - dev
        - stage
      spec:
        containers:
          - image: nginx:1.7 # kpt-set: nginx:\${tag}
    `;
    const { results } = await run(
      input,
      'data:\n  name: my-new-map\n  env: |\n    - prod\n    - stage\n  tag: "1.8"\n',
    );
    expect(results).toEqual([
      {
        message: 'set field value to "- prod\\n- stage\\n"',
        severity: "info",
        field: { path: "environments" },
        file: { path: "resources.yaml" },
      },
      {
        message: 'set field value to "my-new-map"',
        severity: "info",
        field: { path: "metadata.name" },
        file: { path: "resources.yaml" },
      },
      {
        message: 'set field value to "nginx:1.8"',
        severity: "info",
        field: { path: "spec.containers[0].image" },
        file: { path: "resources.yaml" },
      },
    ]);
  });

  it("warns when no field matches", async () => {
    const { results } = await run("a: b # kpt-set: ${other}\n", "data:\n  name: x\n");
    expect(results).toEqual([{ message: "no matches for input setter(s)", severity: "warning" }]);
  });

  it.each([
    {
      name: "a reference with no value that the current value cannot supply",
      config: "data:\n  image: ubuntu\n",
      input: "image: irrelevant_value # kpt-set: ${image}:${tag}\n",
      message: "failed to apply setters: values for setters [${tag}] must be provided",
    },
    {
      name: "an array setter given a scalar",
      config: "data:\n  images: ubuntu\n",
      input: "images: # kpt-set: ${images}\n  - nginx\n",
      message:
        'failed to apply setters: input to array setter must be an array of values, but found "ubuntu"',
    },
    {
      name: "an array field tagged with a pattern",
      config: "data:\n  images: |\n    [ubuntu, hbase]\n",
      input: "images: # kpt-set: ${images}:${tag}\n  - nginx\n",
      message: 'failed to apply setters: invalid setter pattern for array node: "${images}:${tag}"',
    },
    {
      name: "no setter values at all",
      config: "data: {}\n",
      input: "image: nginx # kpt-set: ${image}\n",
      message: "failed to apply setters: input setters list cannot be empty",
    },
  ])("fails on $name", async ({ input, config, message }) => {
    const err = await runError(input, config);
    expect(err.message).toBe(message);
    expect(err.results).toEqual([{ message, severity: "error" }]);
  });

  it("sets every tagged field across many resources", async () => {
    const doc = codeBlock`
      apiVersion: apps/v1
      kind: Deployment
      metadata:
        name: app # kpt-set: \${name}
      spec:
        replicas: 1 # kpt-set: \${replicas}
        template:
          spec:
            containers:
              - name: c
                image: nginx:1.7 # kpt-set: nginx:\${tag}
    `;
    const items = Array.from({ length: 2_000 }, () => parseDocument(doc));
    const rl: ResourceList = {
      items,
      functionConfig: parseDocument('data:\n  name: web\n  replicas: "3"\n  tag: "1.9"\n'),
      results: [],
    };
    const out = await applySetters.run(rl, {});
    expect(out.results).toHaveLength(6_000);
    expect(out.items[1_999]?.toString()).toContain("image: nginx:1.9 # kpt-set: nginx:${tag}");
  });
});
