import { describe, expect, it } from "vitest";
import { KptRenderer } from "../../src/jobs/kpt-renderer/index.js";
import { renderDraft } from "../../src/jobs/render-draft/index.js";
import { blobSha, ParseCache } from "../../src/kpt/parse-cache.js";
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
    "ends a file with a comment line (kyaml moves it: rendered whole)",
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

describe("the bot's render of each push, from what it kept, against a cold render", () => {
  it("commits the same bytes and writes the same check as a renderer that kept nothing, push after push", async () => {
    const warmRepo = new GitLikeRepo();
    const coldRepo = new GitLikeRepo();
    const warm = new KptRenderer();
    for (const repo of [warmRepo, coldRepo]) {
      repo.commit("main", { "README.md": "hi\n" });
      repo.branch(BRANCH, "main");
    }
    const push = (files: Record<string, string | null>) => {
      warmRepo.commit(BRANCH, files);
      coldRepo.commit(BRANCH, files);
    };
    const renderBoth = async (name: string) => {
      const a = await renderDraft({ ...jobContext(warmRepo), renderer: warm }, { branch: BRANCH });
      const b = await renderDraft({ ...jobContext(coldRepo), renderer: cold() }, { branch: BRANCH });
      expect(a.kind, name).toBe(b.kind);
      expect(warmRepo.files(BRANCH, PKG), `${name}: the committed bytes`).toEqual(
        coldRepo.files(BRANCH, PKG),
      );
      const check = (repo: FakeRepo, sha: string) =>
        repo.runsOn(sha, "porchlight/render").map((r) => ({ ...r, id: 0, headSha: "" }));
      const [ha, hb] = [warmRepo.resolve(BRANCH), coldRepo.resolve(BRANCH)];
      expect(check(warmRepo, ha), `${name}: the check`).toEqual(check(coldRepo, hb));
      return a.kind;
    };

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
      "ends a file with a comment line (kyaml moves it: rendered whole): pushed",
      "removes that comment line: clean",
      "edits one file after the pipeline changed: clean",
    ]);
    // The warm renderer answered from what it kept: files reused, not every file rendered again.
    expect(warm.stats.filesReused).toBeGreaterThan(before.filesReused);
    expect(warm.stats.unchanged).toBeGreaterThan(before.unchanged);
  });
});
