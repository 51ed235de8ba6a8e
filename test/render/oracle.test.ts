import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliRun, normalizeDurations, readFiles, runFn } from "./harness.js";
import { hasKpt } from "./kpt-oracle.js";

/**
 * kpt is the reference: the same package goes through `kpt fn render --allow-exec` and through
 * `porchlight fn render --allow-exec`, with exec functions (no container needed), and everything
 * they write must be equal byte for byte: files, stdout, stderr (durations aside), results.yaml.
 */
describe.skipIf(!hasKpt)("porchlight fn render gives what kpt gives", () => {
  let work: string;
  let catFn: string;
  let jsFn: string;

  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), "porchlight-oracle-"));
    catFn = join(work, "cat.sh");
    writeFileSync(catFn, "#!/bin/sh\ncat\n", { mode: 0o755 });
    // Applies `data.js` of its functionConfig to the ResourceList (as a plain object); a number exits.
    const yamlModule = createRequire(import.meta.url).resolve("yaml");
    jsFn = join(work, "js-fn.mjs");
    writeFileSync(
      jsFn,
      [
        "#!/usr/bin/env node",
        `import Y from ${JSON.stringify(join(dirname(yamlModule), "index.js"))};`,
        'let input = "";',
        "for await (const c of process.stdin) input += c;",
        "const rl = Y.parse(input);",
        'const r = new Function("rl", rl.functionConfig?.data?.js ?? "")(rl);',
        "if (typeof r === 'number') { process.stdout.write(Y.stringify(rl)); process.exit(r); }",
        "process.stdout.write(Y.stringify(rl));",
        "",
      ].join("\n"),
      { mode: 0o755 },
    );
  });

  afterAll(() => {
    rmSync(work, { recursive: true, force: true });
  });

  interface Side extends CliRun {
    files: Record<string, string>;
    results?: string;
    /** What `--output out` wrote. */
    out?: Record<string, string>;
  }

  /** Writes the package twice (as `pkg` in two directories) and renders one copy with each tool. */
  async function both(files: Record<string, string>, args: string[] = []): Promise<{ pl: Side; kpt: Side }> {
    const sides = ["pl", "kpt"].map((who) => {
      const base = join(work, `${who}-${Math.random().toString(36).slice(2)}`);
      const pkg = join(base, "pkg");
      for (const [path, text] of Object.entries(files)) {
        mkdirSync(dirname(join(pkg, path)), { recursive: true });
        writeFileSync(join(pkg, path), text.replaceAll("$CAT", catFn).replaceAll("$JS", jsFn));
      }
      return { base, pkg };
    });
    const [p, k] = sides as [{ base: string; pkg: string }, { base: string; pkg: string }];
    const flags = ["--allow-exec", ...args];
    const plRun = await runFn(["render", "pkg", "--results-dir", "results", ...flags], p.base);
    const kptRun = spawnSync("kpt", ["fn", "render", "pkg", "--results-dir", "results", ...flags], {
      cwd: k.base,
      encoding: "utf8",
    });
    const side = (run: CliRun, base: string, pkg: string): Side => ({
      code: run.code,
      stdout: run.stdout,
      stderr: normalizeDurations(run.stderr),
      files: readFiles(pkg),
      results: readOptional(join(base, "results", "results.yaml")),
      ...(existsSync(join(base, "out")) ? { out: readFiles(join(base, "out")) } : {}),
    });
    return {
      pl: side(plRun, p.base, p.pkg),
      kpt: side({ code: kptRun.status ?? -1, stdout: kptRun.stdout, stderr: kptRun.stderr }, k.base, k.pkg),
    };
  }

  const kptfile = (name: string, pipeline = "") =>
    `apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: ${name}\n${pipeline}`;

  const oddFormatting = {
    Kptfile: kptfile("pkg", "pipeline:\n  mutators:\n  - exec: $CAT\n    configMap:\n      a: b\n"),
    "sub/Kptfile": kptfile("sub", "pipeline:\n    mutators:\n        - exec: $CAT\n"),
    "sub/deploy.yaml":
      "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n    name: d   # trailing\nspec:\n    template:\n        spec:\n            containers:\n                - name: c\n                  image: nginx\n",
    "cm.yaml":
      "# head\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm1\ndata:\n    k: 'v'\n    flow:   {a: 1, b: [x, y]}\n    lit: |\n      line\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm2\n  annotations: {}\n\n\n",
    "README.md": "not yaml\n",
    "notes.txt": "a: [not parsed\n",
  };

  it("reformats every resource file the same way with no-op functions, subpackages first", async () => {
    const { pl, kpt } = await both(oddFormatting);
    expect(pl).toEqual(kpt);
  });

  it("writes the same ResourceList with --output stdout", async () => {
    const { pl, kpt } = await both(oddFormatting, ["--output", "stdout"]);
    expect(pl).toEqual(kpt);
  });

  it("writes the resources alone with --output unwrap, and into a new directory with --output DIR", async () => {
    const unwrapped = await both(oddFormatting, ["--output", "unwrap"]);
    expect(unwrapped.pl).toEqual(unwrapped.kpt);
    const toDir = await both(oddFormatting, ["--output", "out"]);
    expect(toDir.pl).toEqual(toDir.kpt);
    expect(toDir.pl.out?.["sub/deploy.yaml"]).toBeDefined();
  });

  it("with --output unwrap, reads its ResourceList back as kpt does: a resource's last comments go by what follows them", async () => {
    // kpt's unwrap reads the ResourceList it would print and writes each item: the comments that end a
    // document in a file (after an empty value, on an empty last item) are no item's there
    const files = {
      Kptfile: kptfile("pkg", ""),
      "a.yaml":
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  k: # on an empty value\n  # under it\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\nl:\n- x\n- # on an empty item\n",
      "b.yaml":
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  t: |\n    text\n  # at the block's column\n",
    };
    const { pl, kpt } = await both(files, ["--output", "unwrap"]);
    expect(pl).toEqual(kpt);
    expect(pl.stdout).not.toContain("# under it");
  });

  it("writes edits, new resources (with and without a path) and deletions as kpt does", async () => {
    const js = [
      "rl.items = rl.items.filter(i => i.kind !== 'Secret');",
      "rl.items.forEach(i => { if (i.kind === 'ConfigMap') { i.metadata.labels = {edited: 'true'}; } });",
      "rl.items.push({apiVersion: 'v1', kind: 'ConfigMap', metadata: {name: 'fresh'}});",
      "rl.items.push({apiVersion: 'v1', kind: 'ConfigMap', metadata: {name: 'fresh2', namespace: 'ns1'}});",
      "rl.items.push({apiVersion: 'v1', kind: 'ConfigMap', metadata: {name: 'placed', annotations: {'config.kubernetes.io/path': 'gen/placed.yaml'}}});",
    ].join(" ");
    const { pl, kpt } = await both({
      Kptfile: kptfile(
        "pkg",
        `pipeline:\n  mutators:\n  - exec: $JS\n    configMap:\n      js: ${JSON.stringify(js)}\n`,
      ),
      "secret.yaml": "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n",
      "cm.yaml":
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n---\napiVersion: v1\nkind: Service\nmetadata:\n  name: svc\n",
      "sub/Kptfile": kptfile("sub"),
      "sub/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: in-sub\n",
    });
    expect(pl).toEqual(kpt);
    expect(pl.files["secret.yaml"]).toBeUndefined();
    expect(pl.files["ns1/configmap_fresh2.yaml"]).toBeDefined();
  });

  it("passes configPath resources and applies selectors and exclude as kpt does", async () => {
    const js =
      "rl.items.forEach(i => { i.metadata.annotations = {...(i.metadata.annotations ?? {}), seen: 'x'} })";
    const { pl, kpt } = await both({
      Kptfile: kptfile(
        "pkg",
        "pipeline:\n  mutators:\n  - exec: $JS\n    configPath: fn-config.yaml\n    selectors:\n    - kind: ConfigMap\n    - labels:\n        pick: me\n    exclude:\n    - name: skip\n",
      ),
      "fn-config.yaml": `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: fn-config\n  annotations:\n    config.kubernetes.io/local-config: "true"\ndata:\n  js: ${JSON.stringify(js)}\n`,
      "r.yaml":
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: one\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: skip\n---\napiVersion: v1\nkind: Service\nmetadata:\n  name: picked\n  labels:\n    pick: me\n---\napiVersion: v1\nkind: Service\nmetadata:\n  name: other\n",
    });
    expect(pl).toEqual(kpt);
    expect(pl.stderr).toContain("on 3 resource(s)");
  });

  it("stops at a failing function with the same message, exit code and results, writing nothing", async () => {
    const fail =
      "rl.results = [{message: 'broken', severity: 'error', resourceRef: {apiVersion: 'v1', kind: 'ConfigMap', name: 'a'}, field: {path: 'data.x'}}]; console.error('something went wrong'); return 1;";
    const warn = "rl.results = [{message: 'look', severity: 'warning'}, {message: 'fyi'}]";
    const { pl, kpt } = await both({
      Kptfile: kptfile(
        "pkg",
        `pipeline:\n  mutators:\n  - exec: $JS\n    configMap:\n      js: ${JSON.stringify(warn)}\n  validators:\n  - exec: $JS\n    configMap:\n      js: ${JSON.stringify(fail)}\n`,
      ),
      "cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n    name: a\n",
      "sub/Kptfile": kptfile("sub", "pipeline:\n  mutators:\n  - exec: $CAT\n"),
    });
    expect(pl).toEqual(kpt);
    expect(pl.code).toBe(1);
  });

  it("gives back the comments and field order a function dropped when it re-encoded its input", async () => {
    const js =
      "rl.items = rl.items.map(i => Object.fromEntries(Object.entries(i).reverse())); rl.items.forEach(i => { i.metadata.namespace = 'ns' })";
    const { pl, kpt } = await both({
      Kptfile: kptfile(
        "pkg",
        `pipeline:\n  mutators:\n  - exec: $JS\n    configMap:\n      js: ${JSON.stringify(js)}\n`,
      ),
      "deploy.yaml":
        "# the app\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app # its name\nspec:\n  # how many\n  replicas: 2\n  template:\n    spec:\n      containers:\n      - name: c # main\n        image: nginx\n",
    });
    expect(pl).toEqual(kpt);
    expect(pl.files["deploy.yaml"]).toContain("# how many");
  });

  it("renders a file whose lines end in CRLF as kpt does: LF, its comments whole", async () => {
    const crlf = (t: string) => t.replaceAll("\n", "\r\n");
    const file =
      "# licence\n\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a # its name\ndata:\n  # two lines\n  # of comment\n\n  # after a blank line\n  k: v\n  empty: # on an empty value\n  # under it\n  l:\n  - x\n  # foot\n\n  m: |\n    text\n";
    for (const pipeline of ["", "pipeline:\n  mutators:\n  - exec: $CAT\n"]) {
      const { pl, kpt } = await both({ Kptfile: kptfile("pkg", pipeline), "a.yaml": crlf(file) });
      expect(pl).toEqual(kpt);
      expect(pl.files["a.yaml"]).not.toContain("\r");
      expect(pl.files["a.yaml"]).toContain("  # two lines\n  # of comment\n");
    }
  });

  it("keeps anchors, tags and merge keys through a function, in the input's order, as kpt does", async () => {
    // the output's `!!merge <<` key (read back with its tag) is the input's `<<`: its place is kept
    const { pl, kpt } = await both({
      Kptfile: kptfile("pkg", "pipeline:\n  mutators:\n  - exec: $CAT\n"),
      "a.yaml":
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\nbase: &base\n  x: 1\nmerged:\n  <<: *base\n  y: 2\nitems:\n- &item\n  a: 1\n- !t\n  b: 2\nuses: [*item]\n",
    });
    expect(pl).toEqual(kpt);
    expect(pl.files["a.yaml"]).toContain("merged:\n  !!merge <<: *base\n  y: 2\n");
    expect(pl.files["a.yaml"]).toContain("base: &base\n");
  });

  it("reads the comments after a resource back as kpt does: what follows it in the ResourceList decides", async () => {
    // kpt reads its function's output with yaml.v3: a resource's last comments, followed there by the
    // next item's `-`, are read back otherwise than at a file's end, and kpt then copies the input's
    // comments onto it; a mapping's foot after a nested block is read back at the innermost block
    const { pl, kpt } = await both({
      Kptfile: kptfile("pkg", "pipeline:\n  mutators:\n  - exec: $CAT\n"),
      "a.yaml":
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  k: v\n# after a\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\ndata:\n  nested:\n    k: v\n  # after b\n",
      "b.yaml":
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  labels:\n    app: c\n  # annotations:\n  #   x: y\n\ndata:\n  outer:\n    inner:\n      k: v\n    # off\n\n  last: 1\n# the end\n",
    });
    expect(pl).toEqual(kpt);
    expect(pl.files["a.yaml"]).toContain("  # after a\n# after a\n");
  });

  it("a builtin gives the comments what kpt's trip through a function gives them", async () => {
    // A builtin stands for a container: kpt writes it the ResourceList and reads back what it writes, as
    // it does an exec function's. kpt runs `cat` here; porchlight a builtin that changes nothing.
    const resources = {
      "a.yaml":
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  s0: x0\n# c1\n\n# end\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\ndata:\n  k:\n    s0: x0\n  # after b\n\n# end of b\n",
      "b.yaml":
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  labels:\n    app: c\n  # annotations:\n  #   x: y\n\ndata:\n  outer:\n    inner:\n      k: v\n    # off\n\n  last: 1\n# the end\n",
    };
    const { kpt } = await both({
      Kptfile: kptfile("pkg", "pipeline:\n  mutators:\n  - exec: $CAT\n"),
      ...resources,
    });
    const base = join(work, `builtin-${Math.random().toString(36).slice(2)}`);
    const builtin =
      "pipeline:\n  mutators:\n  - image: gcr.io/kpt-fn/apply-setters:v0.2.0\n    configMap:\n      unused: x\n";
    for (const [path, text] of Object.entries({ Kptfile: kptfile("pkg", builtin), ...resources })) {
      mkdirSync(dirname(join(base, "pkg", path)), { recursive: true });
      writeFileSync(join(base, "pkg", path), text);
    }
    const run = await runFn(["render", "pkg"], base);
    expect(run.code).toBe(0);
    const files = readFiles(join(base, "pkg"), (f) => f !== "Kptfile");
    expect(files).toEqual(Object.fromEntries(Object.entries(kpt.files).filter(([f]) => f !== "Kptfile")));
    expect(files["a.yaml"]).toContain("  # c1\n# c1\n\n# end\n");
  });

  it("keeps a document's last comments the document's through every function, as kpt does", async () => {
    // kpt gives a function the resource's node, not its document: the comment lines after a blank line at
    // a document's end are in no ResourceList, so a second function does not read them back elsewhere
    const resources = {
      "a.yaml":
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  k:\n    s0: x0\n\n# end of a\n",
      "b.yaml":
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\ndata:\n  s0: x0\n# c1\n\n# end of b\n",
      "c.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n",
    };
    const { pl, kpt } = await both({
      Kptfile: kptfile("pkg", "pipeline:\n  mutators:\n  - exec: $CAT\n  - exec: $CAT\n"),
      ...resources,
    });
    // (kpt's second function also reads a's last comment back as the head of the item after it, b's,
    // and b's as c's: not reproduced, so only a's file is compared)
    expect(pl.files["a.yaml"]).toBe(kpt.files["a.yaml"]);
    expect(pl.files["a.yaml"]).toContain("    s0: x0\n\n# end of a\n");
    const base = join(work, `builtins-${Math.random().toString(36).slice(2)}`);
    const step = "  - image: gcr.io/kpt-fn/apply-setters:v0.2.0\n    configMap:\n      unused: x\n";
    for (const [path, text] of Object.entries({
      Kptfile: kptfile("pkg", `pipeline:\n  mutators:\n${step}${step}`),
      ...resources,
    })) {
      mkdirSync(dirname(join(base, "pkg", path)), { recursive: true });
      writeFileSync(join(base, "pkg", path), text);
    }
    expect((await runFn(["render", "pkg"], base)).code).toBe(0);
    expect(readFiles(join(base, "pkg"))["a.yaml"]).toBe(kpt.files["a.yaml"]);
  });

  it("resolves a relative exec path from the working directory, and reports a missing one alike", async () => {
    const { pl, kpt } = await both({
      Kptfile: kptfile("pkg", "pipeline:\n  mutators:\n  - exec: ./pkg/missing.sh\n"),
      "cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n",
    });
    expect(pl).toEqual(kpt);
    expect(pl.stderr).toContain(
      "Error: unexpected function error: fork/exec ./pkg/missing.sh: no such file or directory",
    );
  });

  it("truncates long results and stderr as kpt does, unless --truncate-output=false", async () => {
    const js =
      "rl.results = [1, 2, 3, 4, 5, 6].map(n => ({message: 'note ' + n, severity: 'warning'})); for (let i = 0; i < 6; i++) console.error('line ' + i); return 2;";
    const files = {
      Kptfile: kptfile(
        "pkg",
        `pipeline:\n  mutators:\n  - exec: $JS\n    configMap:\n      js: ${JSON.stringify(js)}\n`,
      ),
      "cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n",
    };
    const truncated = await both(files);
    expect(truncated.pl).toEqual(truncated.kpt);
    expect(truncated.pl.stderr).toContain(
      "...(2 line(s) truncated, use '--truncate-output=false' to disable)",
    );
    const full = await both(files, ["--truncate-output=false"]);
    expect(full.pl).toEqual(full.kpt);
  });

  it("refuses resources that are not KRM with kpt's message", async () => {
    const { pl, kpt } = await both({
      Kptfile: kptfile("pkg", "pipeline:\n  mutators:\n  - exec: $CAT\n"),
      "list.yaml": "- a\n- b\n",
    });
    expect(pl).toEqual(kpt);
  });

  // Shapes found in public repositories' files (docs/kpt-compat.md): each rendered as kpt renders it.
  const shapes = {
    "template.yaml":
      "apiVersion: v1\nkind: Foo\nmetadata:\n  name: t\nspec:\n  url: {{MANIFEST_FILE_URL}}\n  empty: {b: , c: 1}\n  bare: {e}\n  nested: [{j: }]\n  seqKey: {? [l] : m}\n",
    "dash.yaml":
      "apiVersion: v1\nkind: Foo\nmetadata:\n  name: d\nspec:\n  l:\n  - a\n  # above\n  - # on the dash\n    # under it\n    name: x\n  - # before a list\n    - b\n  - # before a scalar\n    c\n",
    "hash.yaml":
      "# head\n# \n#\n#  two\napiVersion: v1\nkind: Foo\nmetadata:\n  name: h\n# \nspec:\n  a: 1\n  # \n  b: 2\n",
    "twice.yaml": "apiVersion: v1\nkind: Foo\nmetadata:\n  name: w\nspec:\n  a: 1\n  a: 2\n",
    "wide-dash.yaml":
      "apiVersion: v1\nkind: Foo\nmetadata:\n  name: wd\nspec:\n  ports:\n    - # the name matters\n      name: metrics\n      port: 1\n",
    "line-hash.yaml":
      "apiVersion: v1\nkind: Foo\nmetadata:\n  name: lh\nspec:\n  group: apps #\n  b: 1 # \n  c: # \n    d: 1\n",
    "blank-separator.yaml": "\n---\napiVersion: v1\nkind: Foo\nmetadata:\n  name: bs\n",
    "no-newline.yaml":
      "apiVersion: v1\nkind: Foo\nmetadata:\n  name: n\nspec:\n  a:\n    b: 1\n    # c\n    # d",
  };

  it("writes template placeholders, empty flow values, `- # comment`, `# ` and a key twice as kpt does", async () => {
    const { pl, kpt } = await both({ Kptfile: kptfile("pkg"), ...shapes });
    expect(pl).toEqual(kpt);
    expect(pl.files["template.yaml"]).toContain("url: {? {MANIFEST_FILE_URL: ''} : ''}");
    expect(pl.files["dash.yaml"]).toContain("  - # on the dash\n    # under it\n    name: x\n");
    expect(pl.files["hash.yaml"]?.startsWith("# head\n# \n#\n#  two\n")).toBe(true);
    expect(pl.files["twice.yaml"]).toContain("  a: 1\n  a: 2\n");
    expect(pl.files["wide-dash.yaml"]).toContain("    - # the name matters\n      name: metrics\n");
    expect(pl.files["no-newline.yaml"]).toContain("# c\n    # d");
  });

  it("keeps what kpt's trip through a function loses: both values of a key written twice", async () => {
    // kpt writes the first value twice (`a: 1` `a: 1`); porchlight keeps the file's data
    // (docs/kpt-compat.md, Deviations)
    // apart, each keeps its place as in kpt's output (where kpt writes the first's comments twice too),
    // its value and comments its own (kubevirt's vendored CRDs
    // hold `versions:` twice in `spec`; porchlight moved the first down to the second)
    const apart =
      "apiVersion: v1\nkind: Foo\nmetadata:\n  name: w\nspec:\n  # one\n  a: 1\n  b: 2\n  # two\n  a: 3\n  c: 4\n";
    const files = {
      Kptfile: kptfile("pkg", "pipeline:\n  mutators:\n  - exec: $CAT\n"),
      "twice.yaml": shapes["twice.yaml"],
      "apart.yaml": apart,
    };
    const { pl, kpt } = await both(files);
    expect(kpt.files["twice.yaml"]).toContain("  a: 1\n  a: 1\n");
    expect(kpt.files["apart.yaml"]).toBe(apart.replace("a: 3", "a: 1").replace("# two", "# one"));
    expect(pl.code).toBe(0);
    expect(pl.files["twice.yaml"]).toBe(shapes["twice.yaml"]);
    expect(pl.files["apart.yaml"]).toBe(apart);
  });

  it("refuses a Kptfile with a key twice, as kpt does", async () => {
    const { pl, kpt } = await both({
      Kptfile: "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: a\n  name: b\n",
    });
    expect(kpt.code).not.toBe(0);
    expect(pl.code).toBe(kpt.code);
    expect(pl.stderr).toContain('line 5: mapping key "name" already defined at line 4');
  });
});

function readOptional(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}
