// biome-ignore-all lint/suspicious/noTemplateCurlyInString: kpt setter comments are written `${name}`
import { describe, expect, it } from "vitest";
import { parseDocument } from "yaml";
import { applySetters } from "../../../src/fn/builtins/apply-setters.js";
import { FunctionError, type FunctionResult, type ResourceList } from "../../../src/fn/types.js";
import { detectSeqIndent, formatDocuments } from "../../../src/kpt/yaml/format.js";
import { codeBlock } from "../../util/codeblock.js";

async function run(
  input: string,
  config: string,
  release?: string,
): Promise<{ output: string; results: FunctionResult[] }> {
  const texts = input.split(/^---\n/m);
  const items = texts.map((text) => parseDocument(text));
  const indents = items.map((doc, i) => detectSeqIndent(doc, texts[i] ?? ""));
  const rl: ResourceList = { items, functionConfig: parseDocument(config), results: [] };
  const out = await applySetters.run(rl, release === undefined ? {} : { release });
  // Written with the kpt formatter, as a render writes the files.
  return { output: formatDocuments(out.items, indents), results: out.results };
}

async function runError(input: string, config: string, release?: string): Promise<FunctionError> {
  try {
    await run(input, config, release);
  } catch (err) {
    if (err instanceof FunctionError) return err;
    throw err;
  }
  throw new Error("expected the function to fail");
}

/** A Deployment whose nginx container's image is `image`, marked as the pattern `\${image}:\${tag}`. */
const imagePattern = (image: string) => codeBlock`
  apiVersion: apps/v1
  kind: Deployment
  spec:
    template:
      spec:
        containers:
          - name: nginx
            image: ${image} # kpt-set: \${image}:\${tag}
`;

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
      input: imagePattern("nginx:1.7.9"),
      expected: imagePattern("ubuntu:1.8.0"),
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
      name: "reads only data, whatever the config's kind (no release reads a typed setters list)",
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
      expected: "name: x # kpt-set: ${app}\n",
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
        field: { path: "environments" },
        file: { path: "resources.yaml" },
      },
      {
        message: 'set field value to "my-new-map"',
        field: { path: "metadata.name" },
        file: { path: "resources.yaml" },
      },
      {
        message: 'set field value to "nginx:1.8"',
        field: { path: "spec.containers[0].image" },
        file: { path: "resources.yaml" },
      },
    ]);
  });

  it.each([
    ["v0.1.0", []],
    ["v0.2.0", [{ message: "no matches for input setter(s)" }]],
    ["v0.2.1", [{ message: "no matches for input setter(s)" }]],
    ["v0.2.2", [{ message: "no matches for input setter(s)" }]],
  ])("when no field matches, %s passes with results %o", async (release, expected) => {
    const { results } = await run("a: b # kpt-set: ${other}\n", "data:\n  name: x\n", release);
    expect(results).toEqual(expected);
  });

  it.each([
    ["data:\n  name: x\n", "failed to apply setters: no matches for the input list of setters"],
    ["data: {}\n", "failed to apply setters: input setters list cannot be empty"],
  ])("v0.1.1 fails when %j sets nothing", async (config, message) => {
    const err = await runError("a: b # kpt-set: ${other}\n", config, "v0.1.1");
    expect(err.results).toEqual([{ message, severity: "error" }]);
  });

  it("v0.1.0 reports no results, and fails with the bare error", async () => {
    const ok = await run("a: b # kpt-set: ${name}\n", "data:\n  name: x\n", "v0.1.0");
    expect(ok).toEqual({ output: "a: x # kpt-set: ${name}\n", results: [] });
    const err = await runError("image: nginx # kpt-set: ${image}:${tag}\n", "data:\n  image: a\n", "v0.1.0");
    expect(err.message).toBe("failed to apply setters: values for setters [${tag}] must be provided");
    expect(err.results).toEqual([]);
  });

  it.each([
    {
      name: "a flow sequence tagged after it",
      input: "env: [a] # kpt-set: ${env}\n",
      config: "data:\n  env: '[b, c]'\n",
      old: "env: [a] # kpt-set: ${env}\n",
      now: "env: # kpt-set: ${env}\n- b\n- c\n",
    },
    {
      name: "an empty sequence",
      input: "env: [] # kpt-set: ${env}\n",
      config: "data:\n  env: '[b]'\n",
      old: "env: [] # kpt-set: ${env}\n",
      now: "env: # kpt-set: ${env}\n- b\n",
    },
    {
      name: "an empty value on a plain scalar",
      input: "name: x # kpt-set: ${name}\n",
      config: "data:\n  name: ''\n",
      old: "name: # kpt-set: ${name}\n",
      now: 'name: "" # kpt-set: ${name}\n',
    },
    {
      name: "a null field",
      input: "name: null # kpt-set: ${name}\n",
      config: "data:\n  name: x\n",
      old: "name: null # kpt-set: ${name}\n",
      now: "name: x # kpt-set: ${name}\n",
    },
    {
      name: "a current value read through a pattern with a dot",
      input: "host: a-b-com # kpt-set: ${app}.${tld}\n",
      config: "data:\n  app: web\n",
      // `(.*).(.*)`: the dot matches any character, the last group is left empty.
      old: "host: web. # kpt-set: ${app}.${tld}\n",
      now: undefined,
    },
  ])("v0.1.0 and v0.1.1 differ on $name", async ({ input, config, old, now }) => {
    expect((await run(input, config, "v0.1.0")).output).toBe(old);
    if (now === undefined) {
      // The escaped pattern finds no current value: the reference stays unresolved.
      const err = await runError(input, config, "v0.1.1");
      expect(err.message).toBe("failed to apply setters: values for setters [${tld}] must be provided");
    } else {
      expect((await run(input, config, "v0.1.1")).output).toBe(now);
    }
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
