import { describe, expect, it } from "vitest";
import { skipWithoutKpt } from "../util/kpt.js";
import { type Entry, pkgWithBoth } from "./pkg-oracle.js";

const KPTFILE = (name: string): string =>
  `apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: ${name}\n`;
const SVC = (name: string, ns?: string): string =>
  `apiVersion: v1\nkind: Service\nmetadata:\n  name: ${name}\n${ns ? `  namespace: ${ns}\n` : ""}`;

/** A package with a subpackage, a hidden directory, directories without resources and files kpt skips. */
const PACKAGE: Record<string, Entry> = {
  "app/Kptfile": KPTFILE("app"),
  "app/cm.yaml": `${SVC("b", "ns")}---\n${SVC("a")}`,
  "app/a.yml": SVC("s"),
  "app/README.md": "# app\n",
  "app/nokind.yaml": "foo: bar\n",
  "app/empty.yaml": "# nothing here\n",
  "app/x/s.json": '{"kind": "Service"}\n',
  "app/sub/s.yaml": SVC("sub"),
  "app/sub/inner/Kptfile": KPTFILE("inner"),
  "app/sub2/s.yaml": SVC("sub2"),
  "app/empty/deep/s.yaml": SVC("deep"),
  "app/.hidden/s.yaml": SVC("hid"),
  "app/ignored/s.yaml": SVC("ignored"),
  "app/.krmignore": "ignored/\n",
};

const APP_TREE = `Package "app"
├── [Kptfile]  Kptfile app
├── [a.yml]  Service s
├── [cm.yaml]  Service a
├── [cm.yaml]  Service ns/b
├── .hidden
│   └── [s.yaml]  Service hid
├── deep
│   └── [s.yaml]  Service deep
└── sub
    ├── [s.yaml]  Service sub
    ├── Package "inner"
    │   └── [Kptfile]  Kptfile inner
    └── sub2
        └── [s.yaml]  Service sub2
`;

/** [case, args, files, cwd, exit code, stdout, stderr]. */
const CASES: [string, string[], Record<string, Entry>, string, number, string, string][] = [
  ["a package, its subpackages and directories", ["tree", "app"], PACKAGE, ".", 0, APP_TREE, ""],
  ["the same from inside it", ["tree"], PACKAGE, "app", 0, APP_TREE, ""],
  [
    "a directory in the package, by a path that is not clean",
    ["tree", "./app/sub/"],
    PACKAGE,
    ".",
    0,
    'sub\n├── [s.yaml]  Service sub\n└── Package "inner"\n    └── [Kptfile]  Kptfile inner\n',
    "",
  ],
  [
    "the parent directory is named `..`",
    ["tree", ".."],
    { "app/Kptfile": KPTFILE("app"), "app/sub/x.yaml": SVC("x") },
    "app/sub",
    0,
    'Package ".."\n├── [Kptfile]  Kptfile app\n└── sub\n    └── [x.yaml]  Service x\n',
    "",
  ],
  [
    "one file",
    ["tree", "app/cm.yaml"],
    PACKAGE,
    ".",
    0,
    'Package "cm.yaml"\n├── [cm.yaml]  Service a\n└── [cm.yaml]  Service ns/b\n',
    "",
  ],
  [
    "a symbolic link to the package",
    ["tree", "link"],
    { ...PACKAGE, link: { link: "app" } },
    ".",
    0,
    APP_TREE.replace('Package "app"', 'Package "link"'),
    '[WARN] resolved symlink "link" to "app", please note that the symlinks within the package are ignored\n',
  ],
  [
    "scalars as their text, a name of several lines indented under its branch",
    ["tree", "m"],
    {
      "m/x.yaml":
        'kind: 5\nmetadata:\n  name: 1.0\n  namespace: true\n---\nkind: [a]\nmetadata:\n  name: x\n---\nkind: K\nmetadata:\n  name: [x]\n---\nkind: "Q"\nmetadata:\n  name: "a\\nb"\n',
    },
    ".",
    0,
    "m\n├── [x.yaml]  K \n├── [x.yaml]  Q a\n│   b\n└── [x.yaml]  5 true/1.0\n",
    "",
  ],
  ["a directory without YAML prints nothing", ["tree", "e"], { "e/README.md": "x\n" }, ".", 0, "", ""],
  ["a list is read and shows nothing", ["tree", "l"], { "l/x.yaml": "- a\n- b\n" }, ".", 0, "l\n", ""],
  [
    "a document that is a scalar",
    ["tree", "s"],
    { "s/x.yaml": "hello\n" },
    ".",
    1,
    "",
    "error: <base>/s/x.yaml: wrong node kind: expected MappingNode but got ScalarNode: node contents:\nhello\n",
  ],
  [
    "a directory that does not exist",
    ["tree", "app/nope/x"],
    PACKAGE,
    ".",
    1,
    "",
    "error: lstat app/nope: no such file or directory\n",
  ],
  ["two directories", ["tree", "a", "b"], {}, ".", 1, "", "error: accepts at most 1 arg(s), received 2\n"],
  ["an unknown flag", ["tree", "--all"], {}, ".", 1, "", "error: unknown flag: --all\n"],
];

describe("porchlight pkg tree prints what kpt pkg tree prints", () => {
  it.for(CASES)("%s", async ([, args, files, cwd, code, stdout, stderr], ctx) => {
    const { pl, kpt } = await pkgWithBoth(args, files, cwd);
    expect({ code: pl.code, stdout: pl.stdout, stderr: pl.stderr }).toEqual({ code, stdout, stderr });
    skipWithoutKpt(ctx);
    expect(pl).toEqual(kpt);
  });

  it("names a file that does not parse, in kpt's words, then where porchlight found the problem", async (ctx) => {
    const { pl, kpt } = await pkgWithBoth(["tree", "b"], { "b/x.yaml": "a: b\n c: d\n" });
    expect(pl.code).toBe(1);
    expect(pl.stderr).toMatch(/^error: <base>\/b\/x\.yaml: MalformedYAMLError: yaml: line 2: /);
    expect(pl.stderr).toContain("\nb/x.yaml:1:4: invalid YAML: ");
    skipWithoutKpt(ctx);
    expect(pl.stderr.split("\n")[0]).toBe(kpt?.stderr.split("\n")[0]);
  });
});
