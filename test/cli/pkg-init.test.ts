import { describe, expect, it } from "vitest";
import { skipWithoutKpt } from "../util/kpt.js";
import { pkgWithBoth } from "./pkg-oracle.js";

const KPTFILE = (name: string, info = "info:\n  description: sample description\n"): string =>
  `apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: ${name}\n  annotations:\n    config.kubernetes.io/local-config: "true"\n${info}`;

const README = (name: string, description = "sample description"): string =>
  `# ${name}\n\n## Description\n${description}\n\n## Usage\n\n### Fetch the package\n\`kpt pkg get REPO_URI[.git]/PKG_PATH[@VERSION] ${name}\`\nDetails: https://kpt.dev/reference/cli/pkg/get/\n\n### View package content\n\`kpt pkg tree ${name}\`\nDetails: https://kpt.dev/reference/cli/pkg/tree/\n\n### Apply the package\n\`\`\`\nkpt live init ${name}\nkpt live apply ${name} --reconcile-timeout=2m --output=table\n\`\`\`\nDetails: https://kpt.dev/reference/cli/live/\n`;

const CONTEXT = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kptfile.kpt.dev\n  annotations:\n    config.kubernetes.io/local-config: "true"\ndata:\n  name: example\n`;

const WROTE = (dir: string): string =>
  `writing ${dir}Kptfile\nwriting ${dir}README.md\nwriting ${dir}package-context.yaml\n`;

/** [case, args, files before, cwd, what porchlight must do: exit code, stderr, files after]. */
const CASES: [
  string,
  string[],
  Record<string, string>,
  string,
  { code: number; stderr: string; files: Record<string, string> },
][] = [
  [
    "a new package in a named directory",
    ["init", "app"],
    { "app/": "" },
    ".",
    {
      code: 0,
      stderr: WROTE("app/"),
      files: {
        "app/Kptfile": KPTFILE("app"),
        "app/README.md": README("app"),
        "app/package-context.yaml": CONTEXT,
      },
    },
  ],
  [
    "the current directory, named after it",
    ["init"],
    {},
    "db",
    {
      code: 0,
      stderr: WROTE(""),
      files: {
        "db/Kptfile": KPTFILE("db"),
        "db/README.md": README("db"),
        "db/package-context.yaml": CONTEXT,
      },
    },
  ],
  [
    "every flag: keywords read as CSV records, flags repeated, YAML 1.1 words quoted, README escaped as HTML",
    [
      "init",
      "./app/",
      "--description",
      `a+b <c> & 'q' "d"`,
      "--keywords",
      'yes,"x,y"',
      "--keywords",
      " on,1:20",
      "--keywords",
      "",
      "--site",
      "https://example.com/?a=b",
    ],
    { "app/": "" },
    ".",
    {
      code: 0,
      stderr: WROTE("app/"),
      files: {
        "app/Kptfile": KPTFILE(
          "app",
          `info:\n  site: https://example.com/?a=b\n  description: a+b <c> & 'q' "d"\n  keywords:\n  - "yes"\n  - x,y\n  - ' on'\n  - "1:20"\n`,
        ),
        "app/README.md": README("app", "a&#43;b &lt;c&gt; &amp; &#39;q&#39; &#34;d&#34;"),
        "app/package-context.yaml": CONTEXT,
      },
    },
  ],
  [
    "an empty description: info is an empty mapping",
    ["init", "app", "--description", ""],
    { "app/": "" },
    ".",
    {
      code: 0,
      stderr: WROTE("app/"),
      files: {
        "app/Kptfile": KPTFILE("app", "info: {}\n"),
        "app/README.md": README("app", ""),
        "app/package-context.yaml": CONTEXT,
      },
    },
  ],
  [
    "files already there are kept, the others written",
    ["init", "app", "--description", "new"],
    { "app/Kptfile": "kept\n", "app/package-context.yaml": "kept too\n" },
    ".",
    {
      code: 0,
      stderr: "writing app/README.md\n",
      files: {
        "app/Kptfile": "kept\n",
        "app/README.md": README("app", "new"),
        "app/package-context.yaml": "kept too\n",
      },
    },
  ],
  [
    "a package already initialized: nothing to do",
    ["init", "app"],
    { "app/Kptfile": "k\n", "app/README.md": "r\n", "app/package-context.yaml": "c\n" },
    ".",
    {
      code: 0,
      stderr: "",
      files: { "app/Kptfile": "k\n", "app/README.md": "r\n", "app/package-context.yaml": "c\n" },
    },
  ],
  [
    "a directory that does not exist",
    ["init", "nope"],
    {},
    ".",
    { code: 1, stderr: "error: <base>/nope does not exist\n", files: {} },
  ],
  [
    "a file where the directory should be",
    ["init", "f"],
    { f: "x\n" },
    ".",
    {
      code: 1,
      stderr: "writing f/Kptfile\nerror: open <base>/f/Kptfile: not a directory\n",
      files: { f: "x\n" },
    },
  ],
  [
    "two directories",
    ["init", "a", "b"],
    { "a/": "", "b/": "" },
    ".",
    { code: 1, stderr: "error: accepts at most 1 arg(s), received 2\n", files: {} },
  ],
  [
    "an unknown flag",
    ["init", "a", "--name", "x"],
    { "a/": "" },
    ".",
    { code: 1, stderr: "error: unknown flag: --name\n", files: {} },
  ],
  [
    "a keyword with a stray quote",
    ["init", "a", "--keywords", 'é"x'],
    { "a/": "" },
    ".",
    {
      code: 1,
      stderr:
        'error: invalid argument "é\\"x" for "--keywords" flag: parse error on line 1, column 3: bare " in non-quoted-field\n',
      files: {},
    },
  ],
  [
    "a quoted keyword left open over two lines",
    ["init", "a", "--keywords", 'x,"a\nb'],
    { "a/": "" },
    ".",
    {
      code: 1,
      stderr:
        'error: invalid argument "x,\\"a\\nb" for "--keywords" flag: record on line 1; parse error on line 2, column 2: extraneous or missing " in quoted-field\n',
      files: {},
    },
  ],
];

describe("porchlight pkg init makes what kpt pkg init makes", () => {
  it.for(CASES)("%s", async ([, args, files, cwd, want], ctx) => {
    const { pl, kpt } = await pkgWithBoth(args, files, cwd);
    expect({ code: pl.code, stdout: pl.stdout, stderr: pl.stderr, files: pl.files }).toEqual({
      code: want.code,
      stdout: "",
      stderr: want.stderr,
      files: {
        ...Object.fromEntries(Object.entries(files).filter(([p]) => !p.endsWith("/"))),
        ...want.files,
      },
    });
    skipWithoutKpt(ctx);
    expect(pl).toEqual(kpt);
  });
});
