import { mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { skipWithoutKpt } from "../util/kpt.js";
import { compareGet, packageDirs } from "./get-differential.js";
import { useSandbox } from "./pkg-fixture.js";

/**
 * A sample of the `pkg get` differential (`npm run differential -- get`, docs/kpt-compat.md): packages
 * of files of the shapes real repositories hold, fetched by kpt and by porchlight from one local git
 * repository, every file compared byte for byte.
 */

const KPTFILE = (name: string, extra = "") =>
  `apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: ${name}\n${extra}`;

const CM = (name: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  k: v\n`;

/** A ConfigMap kpt writes otherwise (a blank line dropped, a flow map's spacing): a file it rewrote shows. */
const LOOSE_CM = (name: string) =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n\ndata:   {k: v}   # note\n`;

const PACKAGES: Record<string, Record<string, string>> = {
  // files with no document pass through
  shapes: {
    Kptfile: KPTFILE("shapes"),
    "empty.yaml": "",
    "blank.yaml": "\n\n",
    "separator.yaml": "---\n",
    "comments.yaml": "# kind: ConfigMap\n# a commented-out manifest\n",
    "crlf.yaml": "# one\r\n# two\r\n",
    "no-final-break.yaml": "# only a comment",
    "cm.yaml": `# head\n${CM("a")}---\n# between\n\n${CM("b")}`,
  },
  // a list whose key is followed by comment lines keeps its indentation
  lists: {
    Kptfile: KPTFILE("lists"),
    "svc.yaml":
      "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n  namespace: ns\nspec:\n  ports:\n    # agent\n    - name: a\n      port: 1\n",
  },
  // a Kptfile with comments, a namespace and a pipeline; a resource with kpt's working annotations
  kptfile: {
    Kptfile: KPTFILE(
      "kf # the name",
      '  namespace: team\n  annotations:\n    config.kubernetes.io/local-config: "true"\ninfo:\n  description: d # why\npipeline:\n  mutators:\n    - image: set-labels:v0.1\n      configMap:\n        app: x\n# trailing comment\n',
    ),
    "cm.yaml":
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  annotations:\n    config.kubernetes.io/index: '0'\n    config.kubernetes.io/path: 'temp.yaml'\n    internal.config.kubernetes.io/path: 'temp.yaml'\n    config.kubernetes.io/merge-source: 'updated'\ndata: {}\n",
  },
  // kpt's merge-comment step is all or nothing: a file it cannot read as resources leaves every file as
  // it was — a template's text line (a scalar document), a syntax error, in a subpackage too (whose own
  // .krmignore does not count); a file the root's .krmignore names is never touched
  template: {
    Kptfile: KPTFILE("template"),
    "cm.yaml": LOOSE_CM("t"),
    "golden.yaml": `✚ generating source\n---\n${LOOSE_CM("g")}`,
  },
  syntax: { Kptfile: KPTFILE("syntax"), "cm.yaml": LOOSE_CM("s"), ".bad.yml": 'a: "x\n' },
  ignored: {
    Kptfile: KPTFILE("ignored"),
    ".krmignore": "tests/*\n",
    "cm.yaml": LOOSE_CM("i"),
    "tests/text.yaml": "just text\n",
    "tests/cm.yaml": LOOSE_CM("in-tests"),
    "sub/tests/cm.yaml": LOOSE_CM("deeper"),
  },
  blocked: {
    Kptfile: KPTFILE("blocked"),
    "cm.yaml": LOOSE_CM("b"),
    "sub/Kptfile": KPTFILE("sub"),
    "sub/.krmignore": "text.yaml\n",
    "sub/text.yaml": "just text\n",
  },
  // a subpackage inside a package
  nested: {
    Kptfile: KPTFILE("nested"),
    "cm.yaml": CM("outer"),
    "sub/Kptfile": KPTFILE("sub"),
    "sub/cm.yaml": CM("inner"),
  },
};

describe("pkg get: porchlight's copy of each package is kpt's, byte for byte", () => {
  const box = useSandbox(async (b) => {
    const all: Record<string, string> = {};
    for (const [dir, files] of Object.entries(PACKAGES))
      for (const [p, t] of Object.entries(files)) all[`${dir}/${p}`] = t;
    // remote subpackages: Kptfiles naming an upstream (this repository) and no upstreamLock, fetched at
    // `pkg get`; the fetched `nested` package holds a remote subpackage of its own (tag `nested/v1`)
    const upstream = (dir: string) =>
      `upstream:\n  type: git\n  git:\n    repo: file://${b.up}\n    directory: ${dir}\n    ref: v1\n`;
    Object.assign(all, {
      "remote/Kptfile": KPTFILE("remote"),
      "remote/cm.yaml": CM("remote"),
      "remote/lists/Kptfile": KPTFILE("mine", `${upstream("/lists")}info:\n  description: kept\n`),
      "remote/lists/svc.yaml": "# replaced by upstream's\n",
      "remote/lists/own.yaml": CM("own"),
      "remote/deep/Kptfile": KPTFILE("deep", upstream("/nested")),
      "nested/far/Kptfile": KPTFILE("far", upstream("/kptfile")),
    });
    // symbolic links, which kpt's copy passes over (to a file, to a directory)
    Object.assign(all, { "links/Kptfile": KPTFILE("links"), "links/cm.yaml": CM("linked") });
    mkdirSync(join(b.up, "links"), { recursive: true });
    symlinkSync("cm.yaml", join(b.up, "links", "cm-link.yaml"));
    symlinkSync("../shapes", join(b.up, "links", "dir-link"));
    await b.publish("", all, "v1", "nested/v1");
  });

  it("lists the repository's package directories and its root", () => {
    expect(packageDirs(join(box.up, ".git"), "v1")).toEqual([
      "/",
      "/blocked",
      "/blocked/sub",
      "/ignored",
      "/kptfile",
      "/links",
      "/lists",
      "/nested",
      "/nested/far",
      "/nested/sub",
      "/remote",
      "/remote/deep",
      "/remote/lists",
      "/shapes",
      "/syntax",
      "/template",
    ]);
  });

  it.for([
    "/shapes",
    "/lists",
    "/kptfile",
    "/nested",
    "/nested/sub",
    "/remote",
    "/template",
    "/syntax",
    "/ignored",
    "/blocked",
    "/links",
  ])("%s", async (dir, ctx) => {
    skipWithoutKpt(ctx);
    const out = await compareGet(`file://${box.up}.git`, dir, "v1", join(box.root, `g${dir}`), "copy");
    expect(out.files ?? [], out.detail).toEqual([]);
    expect(out.kind).toBe("identical");
  });
});
