import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { pack } from "tar-stream";
import { describe, expect, it } from "vitest";
import { treeFromText, treeToText } from "../../src/kpt/tree.js";
import { readTarball, writeTar, writeTarGz } from "../../src/sources/tar.js";

async function rawTar(
  entries: { name: string; body?: string; type?: "file" | "directory" | "symlink"; linkname?: string }[],
) {
  const p = pack();
  const chunks: Buffer[] = [];
  p.on("data", (c) => chunks.push(c as Buffer));
  const done = new Promise<void>((r) => p.on("end", () => r()));
  for (const e of entries)
    p.entry(
      { name: e.name, type: e.type ?? "file", ...(e.linkname ? { linkname: e.linkname } : {}) },
      e.body ?? "",
    );
  p.finalize();
  await done;
  return Buffer.concat(chunks);
}

describe("tar archives", () => {
  it("writes the same bytes for the same tree whatever the insertion order, with zero times and owners", async () => {
    const a = await writeTarGz(treeFromText({ "b/x.yaml": "x\n", Kptfile: "k\n", "a.yaml": "a\n" }));
    const b = await writeTarGz(treeFromText({ "a.yaml": "a\n", Kptfile: "k\n", "b/x.yaml": "x\n" }));
    expect(a.equals(b)).toBe(true);
    const dir = mkdtempSync(join(tmpdir(), "porchlight-tar-"));
    try {
      writeFileSync(join(dir, "p.tgz"), a);
      const listing = execFileSync("tar", ["-tvzf", join(dir, "p.tgz"), "--numeric-owner"]).toString();
      expect(
        listing
          .trim()
          .split("\n")
          .map((l) =>
            l
              .split(/\s+/)
              .slice(0, 2)
              .join(" ")
              .concat(" ", l.split(/\s+/).pop() ?? ""),
          ),
      ).toEqual(["-rw-r--r-- 0/0 Kptfile", "-rw-r--r-- 0/0 a.yaml", "-rw-r--r-- 0/0 b/x.yaml"]);
      expect(listing).toContain("1970-01-01 00:00");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("reads tar and tar+gzip alike, drops ./ prefixes, and skips directories, links and whiteouts", async () => {
    const tar = await rawTar([
      { name: "./", type: "directory" },
      { name: "./Kptfile", body: "k\n" },
      { name: "./sub/cm.yaml", body: "c\n" },
      { name: "./sub/.wh.gone.yaml" },
      { name: "./link", type: "symlink", linkname: "/etc/passwd" },
    ]);
    const want = { Kptfile: "k\n", "sub/cm.yaml": "c\n" };
    expect(treeToText(await readTarball(tar, "t.tar"))).toEqual(want);
    expect(treeToText(await readTarball(gzipSync(tar), "t.tar.gz"))).toEqual(want);
    expect(treeToText(await readTarball(await writeTar(treeFromText(want)), "w.tar"))).toEqual(want);
  });

  it.each([
    [
      "an absolute path",
      "/etc/cron.d/job",
      "file",
      /: refused entry "\/etc\/cron\.d\/job": an absolute path/,
    ],
    [
      "a `..` part",
      "sub/../../escape.yaml",
      "file",
      /: refused entry "sub\/\.\.\/\.\.\/escape\.yaml": `\.\.` climbs out/,
    ],
    ["a leading `..`", "../Kptfile", "file", /: refused entry "\.\.\/Kptfile": `\.\.` climbs out/],
    ["an absolute directory", "/tmp/", "directory", /: refused entry "\/tmp\/": an absolute path/],
  ] as const)(
    "refuses the whole archive, naming the entry, when one has %s",
    async (_, name, type, message) => {
      const tar = await rawTar([
        { name: "Kptfile", body: "k\n" },
        { name, type, body: type === "file" ? "x\n" : "" },
      ]);
      for (const [bytes, what] of [
        [tar, "https://x/p.tar"],
        [gzipSync(tar), "https://x/p.tgz"],
      ] as const) {
        const err = await readTarball(bytes, what).catch((e: Error) => e);
        expect(err).toBeInstanceOf(Error);
        expect((err as Error).message.startsWith(`${what}: `)).toBe(true);
        expect((err as Error).message).toMatch(message);
      }
    },
  );

  it("names the archive that is not one", async () => {
    await expect(readTarball(Buffer.from([0x1f, 0x8b, 1, 2, 3]), "https://x/p.tgz")).rejects.toThrow(
      /^https:\/\/x\/p\.tgz: not a readable gzip archive/,
    );
  });
});
