import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { KptRenderer } from "../../../src/jobs/kpt-renderer/index.js";
import { renderDraft } from "../../../src/jobs/render-draft/index.js";
import { KptError } from "../../../src/kpt/errors.js";
import { loadPackage } from "../../../src/kpt/package.js";
import { decodeUtf8, firstInvalidByte } from "../../../src/kpt/yaml/utf8.js";
import { fakeRepoWith } from "../../jobs/fake-repo.js";
import { jobContext } from "../../jobs/helpers.js";
import { runFn } from "../../render/harness.js";

const KPTFILE = `apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: latin
pipeline:
  mutators:
    - image: ghcr.io/kptdev/krm-functions-catalog/set-labels:v0.2
      configMap:
        team: web
`;
/** `city: München` with the ü in Latin-1 (0xfc): byte offset 67, line 6, column 10. */
const LATIN1 = Buffer.concat([
  Buffer.from("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  city: M"),
  Buffer.from([0xfc]),
  Buffer.from("nchen\n"),
]);
const MESSAGE =
  "cm.yaml:6:10: not valid UTF-8: byte 0xfc at byte offset 67; kpt reads YAML as UTF-8 only: save the file as UTF-8 (for Latin-1: iconv -f latin1 -t utf-8) and run again";

describe("files that are not UTF-8", () => {
  it.each([
    { name: "a Latin-1 byte", bytes: [0x61, 0xfc, 0x62], at: 1 },
    { name: "a sequence cut short at the end", bytes: [0x61, 0x62, 0xc3], at: 2 },
    { name: "a UTF-16 surrogate", bytes: [0xc3, 0xbc, 0xed, 0xa0, 0x80], at: 2 },
    { name: "an overlong encoding", bytes: [0xc0, 0xaf], at: 0 },
    { name: "valid text", bytes: [0xc3, 0xbc, 0xe2, 0x82, 0xac, 0xf0, 0x9f, 0x98, 0x80], at: 9 },
  ])("find the first bad byte: $name", ({ bytes, at }) => {
    expect(firstInvalidByte(Uint8Array.from(bytes))).toBe(at);
  });

  it("are refused with the file, line, column and byte offset, after earlier multi-byte characters too", () => {
    expect(() => decodeUtf8(LATIN1, "cm.yaml")).toThrow(KptError);
    expect(() => decodeUtf8(LATIN1, "cm.yaml")).toThrow(MESSAGE);
    const text = Buffer.concat([Buffer.from("a: ü€\nb: é"), Buffer.from([0xe9]), Buffer.from("\n")]);
    expect(() => decodeUtf8(text, "f.yaml")).toThrow(
      "f.yaml:2:5: not valid UTF-8: byte 0xe9 at byte offset 14;",
    );
  });

  it("stop the package from loading, as kpt's `invalid leading UTF-8 octet` does", () => {
    const tree = new Map([
      ["Kptfile", Buffer.from(KPTFILE)],
      ["cm.yaml", LATIN1],
    ]);
    expect(() => loadPackage(tree)).toThrow(MESSAGE);
  });

  it("fail `porchlight fn render` and leave the file's bytes as they were", async () => {
    const dir = mkdtempSync(join(tmpdir(), "porchlight-utf8-"));
    try {
      const pkg = join(dir, "pkg");
      mkdirSync(pkg);
      writeFileSync(join(pkg, "Kptfile"), KPTFILE);
      writeFileSync(join(pkg, "cm.yaml"), LATIN1);
      const run = await runFn(["render", "pkg"], dir);
      expect(run.code).not.toBe(0);
      expect(run.stderr).toContain(MESSAGE);
      expect(readFileSync(join(pkg, "cm.yaml")).equals(LATIN1)).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("fail the bot's render check on the draft and push nothing", async () => {
    const repo = fakeRepoWith({ "README.md": "hi\n" });
    const branch = "drafts/apps/latin/edit-1";
    repo.branch(branch, "main");
    const head = repo.commit(branch, { "apps/latin/Kptfile": KPTFILE });
    repo.commits.get(head)!.tree.set("apps/latin/cm.yaml", LATIN1);
    const ctx = { ...jobContext(repo), renderer: new KptRenderer() };

    const outcome = await renderDraft(ctx, { branch });

    expect(outcome.kind).toBe("failed");
    expect(repo.resolve(branch)).toBe(head);
    const [run] = repo.runsOn(head, "porchlight/render");
    expect(run?.conclusion).toBe("failure");
    expect(run?.summary).toContain(MESSAGE);
  });
});

describe("a merge (pkg update, fan-out) over a file that is not UTF-8", () => {
  it("refuses it, naming the file and the byte, instead of merging replacement characters into it", async () => {
    const { mergePackage } = await import("../../../src/merge/index.js");
    const kf = Buffer.from("apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: pkg\n");
    const cm = (v: string) =>
      Buffer.from(`apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  v: "${v}"\n`);
    expect(() =>
      mergePackage({
        original: new Map([
          ["Kptfile", kf],
          ["cm.yaml", cm("1")],
        ]),
        updated: new Map([
          ["Kptfile", kf],
          ["cm.yaml", cm("2")],
        ]),
        local: new Map([
          ["Kptfile", kf],
          ["cm.yaml", LATIN1],
        ]),
      }),
    ).toThrow(MESSAGE);
  });
});
