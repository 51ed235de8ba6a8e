import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { BoundedWork } from "../../src/jobs/bounded/bounded.js";
import { BoundedRenderer } from "../../src/jobs/bounded/renderer.js";
import { KptRenderer } from "../../src/jobs/kpt-renderer/index.js";
import { RenderJournal } from "../../src/jobs/kpt-renderer/render-journal.js";
import { renderDraft } from "../../src/jobs/render-draft/index.js";
import type { Renderer } from "../../src/jobs/renderer.js";
import { blobSha, ParseCache } from "../../src/kpt/yaml/parse-cache.js";
import { FakeRepo } from "./fake-repo.js";
import { jobContext } from "./helpers.js";

const BRANCH = "drafts/apps/web/diff";
const PKG = "apps/web";

/** The five builtins of the bench, each run by item. */
const PIPELINE = `pipeline:
  mutators:
  - image: gcr.io/kpt-fn/set-namespace:v0.4.1
    configMap:
      namespace: web
  - image: gcr.io/kpt-fn/set-labels:v0.2.0
    configMap:
      team: platform
  - image: gcr.io/kpt-fn/set-annotations:v0.1.4
    configMap:
      owner: web-team
  - image: gcr.io/kpt-fn/apply-setters:v0.2.0
    configMap:
      replicas: "3"
  - image: gcr.io/kpt-fn/set-image:v0.1.1
    configMap:
      name: registry.example.com/app
      newTag: 2.0.0
`;
const kptfile = (name: string, pipeline = "") =>
  `apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: ${name}\n${pipeline}`;
const deployment = (name: string, replicas = 2) => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
spec:
  replicas: ${replicas} # kpt-set: \${replicas}
  template:
    spec:
      containers:
      - name: main
        image: registry.example.com/app:1.0.0
`;
const configMap = (name: string, value: string) =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  value: "${value}"\n`;

/** A package of a root and a subpackage, some files of several resources. */
function initialFiles(): Record<string, string> {
  const files: Record<string, string> = {
    [`${PKG}/Kptfile`]: kptfile("web", PIPELINE),
    [`${PKG}/db/Kptfile`]: kptfile("db"),
  };
  for (let i = 0; i < 12; i++) {
    const dir = i % 3 === 0 ? `${PKG}/db` : PKG;
    files[`${dir}/app-${i}.yaml`] = `${deployment(`app-${i}`)}---\n${configMap(`cm-${i}`, String(i))}`;
  }
  return files;
}

/** A push to the draft: what it changes, given the package's files at the head (repository paths). */
type Edit = [name: string, change: (files: Record<string, string>) => Record<string, string | null>];

const EDITS: Edit[] = [
  ["edits one file", (f) => ({ [`${PKG}/app-1.yaml`]: f[`${PKG}/app-1.yaml`]!.replace('"1"', '"one"') })],
  [
    "edits one file so the pipeline changes it",
    (f) => ({ [`${PKG}/app-2.yaml`]: f[`${PKG}/app-2.yaml`]!.replace("replicas: 3", "replicas: 7") }),
  ],
  ["adds a file", () => ({ [`${PKG}/db/new.yaml`]: deployment("new-db", 1) })],
  ["deletes a file", () => ({ [`${PKG}/app-4.yaml`]: null })],
  ["changes outside the package", () => ({ "README.md": "edited\n" })],
  [
    "changes the Kptfile's pipeline",
    (f) => ({ [`${PKG}/Kptfile`]: f[`${PKG}/Kptfile`]!.replace("team: platform", "team: data") }),
  ],
  [
    "adds a step to the Kptfile's pipeline",
    (f) => ({
      [`${PKG}/Kptfile`]: f[`${PKG}/Kptfile`]!.replace(
        "  - image: gcr.io/kpt-fn/set-annotations:v0.1.4",
        "  - image: gcr.io/kpt-fn/set-labels:v0.2.0\n    configMap:\n      extra: yes\n  - image: gcr.io/kpt-fn/set-annotations:v0.1.4",
      ),
    }),
  ],
  [
    "ends a file with a comment line (kyaml moves it)",
    (f) => ({ [`${PKG}/app-5.yaml`]: `${f[`${PKG}/app-5.yaml`]}# note\n` }),
  ],
  [
    "removes that comment line",
    (f) => ({ [`${PKG}/app-5.yaml`]: f[`${PKG}/app-5.yaml`]!.replace(/\n *# note\n# note\n$/, "\n") }),
  ],
  [
    "edits one file after the pipeline changed",
    (f) => ({ [`${PKG}/app-7.yaml`]: f[`${PKG}/app-7.yaml`]!.replace('"7"', '"seven"') }),
  ],
];

/** A fake repository whose reads carry blob ids, as git lists them (the bot's path through the renderer). */
class GitLikeRepo extends FakeRepo {
  override async readTree(ref: string, dir = "") {
    const read = await super.readTree(ref, dir);
    return { ...read, blobs: new Map([...read.tree].map(([p, b]) => [p, blobSha(b)])) };
  }
}

/** A renderer that keeps nothing between renders: every render is a cold, whole render. */
const cold = () => new KptRenderer(undefined, undefined, true, new ParseCache(), null);

/** The app's renderer, journaling what it keeps in `dir` (a restart's renderer reads it back). */
const journaled = (dir: string) =>
  new KptRenderer(undefined, undefined, true, undefined, undefined, undefined, new RenderJournal(dir));

/** Two drafts, the same pushes: one rendered by `warm()` (which a test may replace: a restart), one cold. */
function twins(warm: () => Renderer) {
  const warmRepo = new GitLikeRepo();
  const coldRepo = new GitLikeRepo();
  for (const repo of [warmRepo, coldRepo]) {
    repo.commit("main", { "README.md": "hi\n" });
    repo.branch(BRANCH, "main");
  }
  const push = (files: Record<string, string | null>) => {
    warmRepo.commit(BRANCH, files);
    coldRepo.commit(BRANCH, files);
  };
  const renderBoth = async (name: string) => {
    const a = await renderDraft({ ...jobContext(warmRepo), renderer: warm() }, { branch: BRANCH });
    const b = await renderDraft({ ...jobContext(coldRepo), renderer: cold() }, { branch: BRANCH });
    expect(a.kind, name).toBe(b.kind);
    expect(warmRepo.files(BRANCH, PKG), `${name}: the committed bytes`).toEqual(coldRepo.files(BRANCH, PKG));
    const check = (repo: FakeRepo, sha: string) =>
      repo.runsOn(sha, "porchlight/render").map((r) => ({ ...r, id: 0, headSha: "" }));
    const [ha, hb] = [warmRepo.resolve(BRANCH), coldRepo.resolve(BRANCH)];
    expect(check(warmRepo, ha), `${name}: the check`).toEqual(check(coldRepo, hb));
    return a.kind;
  };
  return { warmRepo, push, renderBoth };
}

describe("the bot's render of each push, from what it kept, against a cold render", () => {
  it("commits the same bytes and writes the same check as a renderer that kept nothing, push after push", async () => {
    const warm = new KptRenderer();
    const { warmRepo, push, renderBoth } = twins(() => warm);

    push(initialFiles());
    expect(await renderBoth("the first push")).toBe("pushed");
    const before = warm.stats;
    const kinds: string[] = [];
    for (const [name, change] of EDITS) {
      push(change(warmRepo.files(BRANCH)));
      kinds.push(`${name}: ${await renderBoth(name)}`);
    }
    expect(kinds).toEqual([
      "edits one file: clean",
      "edits one file so the pipeline changes it: pushed",
      "adds a file: pushed",
      "deletes a file: clean",
      "changes outside the package: clean",
      "changes the Kptfile's pipeline: pushed",
      "adds a step to the Kptfile's pipeline: pushed",
      "ends a file with a comment line (kyaml moves it): pushed",
      "removes that comment line: clean",
      "edits one file after the pipeline changed: clean",
    ]);
    // The warm renderer answered from what it kept: files reused, not every file rendered again.
    expect(warm.stats.filesReused).toBeGreaterThan(before.filesReused);
    expect(warm.stats.unchanged).toBeGreaterThan(before.unchanged);
  });
});

/**
 * The pushes a person makes to a draft, in the order a day brings them (issue #52), each after the
 * one before: every one answered from what the renderer kept, never by rendering every file again.
 */
const DAY: (Edit | "restart")[] = [
  ["edits one file", (f) => ({ [`${PKG}/app-1.yaml`]: f[`${PKG}/app-1.yaml`]!.replace('"1"', '"one"') })],
  ["changes outside the package", () => ({ "README.md": "edited\n" })],
  [
    "edits one file after a push outside",
    (f) => ({ [`${PKG}/app-2.yaml`]: f[`${PKG}/app-2.yaml`]!.replace('"2"', '"two"') }),
  ],
  [
    "ends a file with a comment line",
    (f) => ({ [`${PKG}/app-5.yaml`]: `${f[`${PKG}/app-5.yaml`]}# note\n` }),
  ],
  [
    "edits one file after that render commit",
    (f) => ({ [`${PKG}/app-1.yaml`]: f[`${PKG}/app-1.yaml`]!.replace('"one"', '"uno"') }),
  ],
  [
    "removes a field a function sets",
    (f) => ({ [`${PKG}/app-7.yaml`]: f[`${PKG}/app-7.yaml`]!.replace(/\n {2}namespace: web\n/, "\n") }),
  ],
  [
    "edits one file after that render commit too",
    (f) => ({ [`${PKG}/app-8.yaml`]: f[`${PKG}/app-8.yaml`]!.replace('"8"', '"eight"') }),
  ],
  [
    "edits three files at once",
    (f) =>
      Object.fromEntries(
        ["app-2.yaml", "app-10.yaml", "db/app-3.yaml"].map((p) => [
          `${PKG}/${p}`,
          f[`${PKG}/${p}`]!.replace(/value: "[^"]*"/, 'value: "x"'),
        ]),
      ),
  ],
  ["adds a file at the end of the list", () => ({ [`${PKG}/zz.yaml`]: configMap("zz", "z") })],
  ["removes a file", () => ({ [`${PKG}/app-4.yaml`]: null })],
  "restart",
  [
    "edits one file after a restart",
    (f) => ({ [`${PKG}/app-8.yaml`]: f[`${PKG}/app-8.yaml`]!.replace('"eight"', '"ocho"') }),
  ],
  [
    "edits one file after a restart, again",
    (f) => ({ [`${PKG}/app-1.yaml`]: f[`${PKG}/app-1.yaml`]!.replace('"uno"', '"eins"') }),
  ],
];

describe("a day of pushes to a draft, through the bot's render job, against a cold render", () => {
  it("commits the same bytes and writes the same check, rendering only what each push changed, across a restart", async () => {
    const dir = mkdtempSync(join(tmpdir(), "porchlight-day-"));
    try {
      let warm = journaled(dir);
      const { warmRepo, push, renderBoth } = twins(() => warm);
      push(initialFiles());
      expect(await renderBoth("the first push")).toBe("pushed");
      const kinds: string[] = [];
      for (const step of DAY) {
        if (step === "restart") {
          warm = journaled(dir);
          continue;
        }
        const [name, change] = step;
        push(change(warmRepo.files(BRANCH)));
        const before = warm.stats;
        const kind = await renderBoth(name);
        kinds.push(`${name}: ${kind}`);
        // From what it kept: the files not changed reused (or the whole tree known), never all rendered again.
        const after = warm.stats;
        const reused = after.filesReused - before.filesReused + (after.unchanged - before.unchanged);
        expect(reused, `${name}: answered from what the renderer kept`).toBeGreaterThan(0);
        expect(after.filesRendered - before.filesRendered, `${name}: files rendered`).toBeLessThan(8);
      }
      expect(kinds).toEqual([
        "edits one file: clean",
        "changes outside the package: clean",
        "edits one file after a push outside: clean",
        "ends a file with a comment line: pushed",
        "edits one file after that render commit: clean",
        "removes a field a function sets: pushed",
        "edits one file after that render commit too: clean",
        "edits three files at once: clean",
        "adds a file at the end of the list: pushed",
        "removes a file: clean",
        "edits one file after a restart: clean",
        "edits one file after a restart, again: clean",
      ]);
      expect(warm.stats.journalBytesRead).toBeGreaterThan(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/**
 * The pushes the app answers without rendering (BoundedRenderer's same-tree memo) or from what its
 * worker kept, each followed by an edit: through the app's renderer on a worker thread, against a cold
 * render, across a restart (a new worker and memo, the journal read back).
 */
const SAME_TREES: (Edit | "restart")[] = [
  ["edits one file", (f) => ({ [`${PKG}/app-1.yaml`]: f[`${PKG}/app-1.yaml`]!.replace('"1"', '"one"') })],
  ["changes outside the package", () => ({ "README.md": "edited\n" })],
  ["changes outside the package again", () => ({ "README.md": "edited again\n" })],
  [
    "edits one file after a push outside",
    (f) => ({ [`${PKG}/app-2.yaml`]: f[`${PKG}/app-2.yaml`]!.replace('"2"', '"two"') }),
  ],
  [
    "reverts that edit (files rendered before)",
    (f) => ({ [`${PKG}/app-2.yaml`]: f[`${PKG}/app-2.yaml`]!.replace('"two"', '"2"') }),
  ],
  [
    "edits one file after the revert",
    (f) => ({ [`${PKG}/app-10.yaml`]: f[`${PKG}/app-10.yaml`]!.replace('"10"', '"ten"') }),
  ],
  [
    "ends a file with a comment line",
    (f) => ({ [`${PKG}/app-5.yaml`]: `${f[`${PKG}/app-5.yaml`]}# note\n` }),
  ],
  ["changes outside the package after the render commit", () => ({ "README.md": "and again\n" })],
  [
    "edits one file after that render commit",
    (f) => ({ [`${PKG}/app-1.yaml`]: f[`${PKG}/app-1.yaml`]!.replace('"one"', '"uno"') }),
  ],
  "restart",
  ["changes outside the package after a restart", () => ({ "README.md": "restarted\n" })],
  [
    "edits one file after a restart",
    (f) => ({ [`${PKG}/app-8.yaml`]: f[`${PKG}/app-8.yaml`]!.replace('"8"', '"ocho"') }),
  ],
];

describe("pushes answered from the same-tree memo, through the app's renderer on a worker thread, against a cold render", () => {
  it("commits the same bytes and writes the same check, the trees rendered before answered without a worker", async () => {
    const dir = mkdtempSync(join(tmpdir(), "porchlight-same-"));
    const start = () =>
      new BoundedWork(
        { timeoutMs: 120_000, workers: 1, memoryMb: 1024 },
        { env: {}, allow: [], journalDir: dir },
      );
    let work = start();
    try {
      let warm = new BoundedRenderer(work);
      let asked = vi.spyOn(work, "run");
      const { warmRepo, push, renderBoth } = twins(() => warm);
      push(initialFiles());
      expect(await renderBoth("the first push")).toBe("pushed");
      const kinds: string[] = [];
      const workerRenders: string[] = [];
      for (const step of SAME_TREES) {
        if (step === "restart") {
          await work.close();
          work = start();
          warm = new BoundedRenderer(work);
          asked = vi.spyOn(work, "run");
          continue;
        }
        const [name, change] = step;
        push(change(warmRepo.files(BRANCH)));
        const before = asked.mock.calls.filter(([r]) => r.op === "render").length;
        kinds.push(`${name}: ${await renderBoth(name)}`);
        if (asked.mock.calls.filter(([r]) => r.op === "render").length > before) workerRenders.push(name);
      }
      expect(kinds).toEqual([
        "edits one file: clean",
        "changes outside the package: clean",
        "changes outside the package again: clean",
        "edits one file after a push outside: clean",
        "reverts that edit (files rendered before): clean",
        "edits one file after the revert: clean",
        "ends a file with a comment line: pushed",
        "changes outside the package after the render commit: clean",
        "edits one file after that render commit: clean",
        "changes outside the package after a restart: clean",
        "edits one file after a restart: clean",
      ]);
      // the pushes whose package files a render had already answered went to no worker, the bot's
      // render commit (told by settled()) among them
      expect(workerRenders).toEqual([
        "edits one file",
        "edits one file after a push outside",
        "edits one file after the revert",
        "ends a file with a comment line",
        "edits one file after that render commit",
        "changes outside the package after a restart",
        "edits one file after a restart",
      ]);
    } finally {
      await work.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
