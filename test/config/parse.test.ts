import { describe, expect, it } from "vitest";
import { formatProblem, parseRepoConfig } from "../../src/config/index.js";
import { codeBlock } from "../util/codeblock.js";

describe("parseRepoConfig accepts", () => {
  it.each([
    { name: "an empty file as an empty configuration", text: "", config: {} },
    { name: "a file of only comments", text: "# nothing yet\n", config: {} },
    {
      name: "every field",
      text: codeBlock`
        baseBranch: main
        packageRoot: packages
        deployment: true
        requiredApprovals: 2
        mergeMethod: squash
        guardrails:
          - image: ghcr.io/kptdev/krm-functions-catalog/kubeconform:v0.1
            packages: ["apps/**"]
          - name: no-latest-tags
            image: starlark:v0.5
            configPath: policy/no-latest.yaml
        channels:
          names: [stable, beta, edge]
          default: beta
        functions:
          runtimes: [builtin, exec]
        versioning:
          scheme: integer
      `,
      config: {
        baseBranch: "main",
        packageRoot: "packages",
        deployment: true,
        requiredApprovals: 2,
        mergeMethod: "squash",
        guardrails: [
          { image: "ghcr.io/kptdev/krm-functions-catalog/kubeconform:v0.1", packages: ["apps/**"] },
          { name: "no-latest-tags", image: "starlark:v0.5", configPath: "policy/no-latest.yaml" },
        ],
        channels: { names: ["stable", "beta", "edge"], default: "beta" },
        functions: { runtimes: ["builtin", "exec"] },
        versioning: { scheme: "integer" },
      },
    },
    {
      name: "a guardrail with an inline configMap",
      text: codeBlock`
        guardrails:
          - image: kubeconform:v0.1
            configMap:
              strict: "true"
      `,
      config: { guardrails: [{ image: "kubeconform:v0.1", configMap: { strict: "true" } }] },
    },
  ])("$name", ({ text, config }) => {
    expect(parseRepoConfig(text)).toEqual({ ok: true, config });
  });
});

describe("parseRepoConfig reports the file, line, column, field and what is wrong", () => {
  it.each([
    {
      name: "a value outside an enum",
      text: codeBlock`
        requiredApprovals: 1
        mergeMethod: fast-forward
      `,
      problems: [
        '.github/porchlight.yml:2:14 (main): mergeMethod: must be one of merge, squash, rebase, not "fast-forward"',
      ],
    },
    {
      name: "a wrong type",
      text: "requiredApprovals: two\n",
      problems: ['.github/porchlight.yml:1:20 (main): requiredApprovals: must be a number, not "two"'],
    },
    {
      name: "a fraction where a whole number is needed",
      text: "requiredApprovals: 1.5\n",
      problems: [".github/porchlight.yml:1:20 (main): requiredApprovals: must be a whole number, not 1.5"],
    },
    {
      name: "a misspelt field, with the field it probably meant",
      text: "mergeMetod: squash\n",
      problems: [
        ".github/porchlight.yml:1:1 (main): mergeMetod: unknown field `mergeMetod`; did you mean `mergeMethod`?",
      ],
    },
    {
      name: "an unknown field far from every known one, listing the known ones",
      text: "channels:\n  colour: blue\n",
      problems: [
        ".github/porchlight.yml:2:3 (main): channels.colour: unknown field `colour`; known fields: names, default",
      ],
    },
    {
      name: "a missing required field, at its parent",
      text: codeBlock`
        guardrails:
          - name: policy
            configPath: policy.yaml
      `,
      problems: [".github/porchlight.yml:2:5 (main): guardrails[0].image: is missing (required: text)"],
    },
    {
      name: "configMap and configPath together",
      text: codeBlock`
        guardrails:
          - image: kubeconform:v0.1
            configMap: {strict: "true"}
            configPath: kubeconform.yaml
      `,
      problems: [
        ".github/porchlight.yml:4:17 (main): guardrails[0].configPath: set either `configMap` or `configPath`, not both",
      ],
    },
    {
      name: "a default channel that is not among the names, listing them",
      text: codeBlock`
        channels:
          names: [dev, prod]
          default: edge
      `,
      problems: [
        '.github/porchlight.yml:3:12 (main): channels.default: must be one of the channels in `names` (`dev`, `prod`), not "edge"; pick one of them, or add "edge" to `names`',
      ],
    },
    {
      name: "a default channel without names, which then are the default ones",
      text: codeBlock`
        channels:
          default: edge
      `,
      problems: [
        '.github/porchlight.yml:2:12 (main): channels.default: must be one of the channels (`stable`, `beta`, the default `names`), not "edge"; pick one of them, or set `names` to list "edge"',
      ],
    },
    {
      name: "a channel name that is not a DNS label",
      text: "channels:\n  names: [Stable]\n",
      problems: [
        ".github/porchlight.yml:2:11 (main): channels.names[0]: a channel name uses lowercase letters, digits and '-' (like `stable` or `beta`)",
      ],
    },
    {
      name: "a base branch git would refuse",
      text: "baseBranch: release..1\n",
      problems: [
        ".github/porchlight.yml:1:13 (main): baseBranch: is not a valid git branch name: it cannot contain `..`",
      ],
    },
    {
      name: "a package root outside the repository",
      text: "packageRoot: ../elsewhere\n",
      problems: [
        ".github/porchlight.yml:1:14 (main): packageRoot: must stay inside the repository (no `..`)",
      ],
    },
    {
      name: "a runtime that does not exist",
      text: "functions:\n  runtimes: [builtin, wasm]\n",
      problems: [
        '.github/porchlight.yml:2:23 (main): functions.runtimes[1]: must be one of builtin, exec, container, not "wasm"',
      ],
    },
    {
      name: "an empty value where text is needed",
      text: "guardrails:\n  - image:\n",
      problems: [".github/porchlight.yml:2:5 (main): guardrails[0].image: must be text, not empty"],
    },
    {
      name: "a list where a map of fields is needed",
      text: "- mergeMethod: squash\n",
      problems: [".github/porchlight.yml:1:1 (main): the file must be a map of fields, not a list"],
    },
    {
      name: "YAML that does not parse",
      text: "mergeMethod: [squash\nrequiredApprovals: 1\n",
      problems: [expect.stringMatching(/^\.github\/porchlight\.yml:2:1 \(main\): is not valid YAML: .+/)],
    },
    {
      name: "the same field twice",
      text: "mergeMethod: squash\nmergeMethod: merge\n",
      problems: [".github/porchlight.yml:2:1 (main): sets the same field twice; keep one"],
    },
    {
      name: "two YAML documents",
      text: "mergeMethod: squash\n---\nmergeMethod: merge\n",
      problems: [
        ".github/porchlight.yml:2:1 (main): holds more than one YAML document; remove the second `---`",
      ],
    },
    {
      name: "several problems, in file order",
      text: codeBlock`
        mergeMethod: ff
        requiredApprovals: -1
      `,
      problems: [
        '.github/porchlight.yml:1:14 (main): mergeMethod: must be one of merge, squash, rebase, not "ff"',
        ".github/porchlight.yml:2:20 (main): requiredApprovals: must be at least 0",
      ],
    },
  ])("$name", ({ text, problems }) => {
    const result = parseRepoConfig(text, { ref: "main" });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems.map(formatProblem)).toEqual(problems);
  });

  it("refuses a file that expands aliases without end", () => {
    // Each anchor repeats the previous one 25 times: 9 levels would expand to 25^8 values.
    const names = "abcdefghi";
    const lines = ["a: &a [x, x, x]"];
    for (let i = 1; i < names.length; i++) {
      lines.push(
        `${names[i]}: &${names[i]} [${Array.from({ length: 25 }, () => `*${names[i - 1]}`).join(", ")}]`,
      );
    }
    const result = parseRepoConfig(`${lines.join("\n")}\n`);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.problems[0]?.message).toMatch(/^cannot be read: /);
  });

  it("names the file it was given and keeps the span of the offending value", () => {
    const result = parseRepoConfig("mergeMethod: nope\n", {
      path: ".github/porchlight.yaml",
      ref: "abc1234",
    });
    expect(result).toEqual({
      ok: false,
      problems: [
        {
          file: ".github/porchlight.yaml",
          ref: "abc1234",
          line: 1,
          column: 14,
          endLine: 1,
          endColumn: 18,
          field: "mergeMethod",
          message: 'must be one of merge, squash, rebase, not "nope"',
        },
      ],
    });
  });
});
