import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { type RpkgWorld, rpkgWorld } from "./world.js";

const R = "--repository=acme/blueprints";
const NAME = "blueprints.new-package.ws";

/**
 * A package revision's own labels and annotations, as Porch's PackageRevision metadata (its API e2e
 * TestPackageRevisionMetadata): set by the client, kept for the revision's life through propose and
 * publish, beside Porch's computed latest-revision label, never carried to a clone.
 */
describe("rpkg label and annotate: a revision's own metadata, kept in git", () => {
  let w: RpkgWorld;
  const json = async (name: string) => {
    const r = await w.rpkg(w.alice, ["get", name, R, "-o", "json"]);
    expect(r.stderr).toBe("");
    return JSON.parse(r.stdout) as {
      metadata: { labels?: Record<string, string>; annotations: Record<string, string> };
    };
  };
  const own = (annotations: Record<string, string>) =>
    Object.fromEntries(Object.entries(annotations).filter(([k]) => !k.startsWith("porchlight.dev/")));

  beforeAll(async () => {
    w = await rpkgWorld();
    await w.forge.createRepo("acme/.porchlight", { autoInit: true });
    w.forge.setPermission("acme/.porchlight", "alice", "write");
    w.forge.setPermission("acme/.porchlight", "bob", "read");
    expect((await w.rpkg(w.alice, ["init", "new-package", R, "--workspace=ws"])).code).toBe(0);
  }, 60_000);
  afterAll(() => w.stop());

  it("sets labels and annotations that get shows, through propose and publish, beside the latest-revision label", async () => {
    expect(await w.rpkg(w.alice, ["label", NAME, "kpt.dev/label=foo", R])).toEqual({
      code: 0,
      stdout: `packagerevision.porch.kpt.dev/${NAME} labeled\n`,
      stderr: "",
    });
    expect(
      (await w.rpkg(w.alice, ["annotate", NAME, "kpt.dev/anno=foo", "kpt.dev/other-anno=bar", R])).stdout,
    ).toBe(`packagerevision.porch.kpt.dev/${NAME} annotated\n`);
    let obj = await json(NAME);
    expect(obj.metadata.labels).toEqual({ "kpt.dev/label": "foo" });
    expect(own(obj.metadata.annotations)).toEqual({ "kpt.dev/anno": "foo", "kpt.dev/other-anno": "bar" });

    expect((await w.publish("acme/blueprints", NAME)).code).toBe(0);
    obj = await json(NAME);
    expect(obj.metadata.labels).toEqual({ "kpt.dev/label": "foo", "kpt.dev/latest-revision": "true" });
    expect(own(obj.metadata.annotations)).toEqual({ "kpt.dev/anno": "foo", "kpt.dev/other-anno": "bar" });

    // kubectl label's KEY- removes, a new key is added; annotate's likewise
    expect(
      (await w.rpkg(w.alice, ["label", NAME, "kpt.dev/label-", "kpt.dev/other-label=bar", R])).code,
    ).toBe(0);
    expect((await w.rpkg(w.alice, ["annotate", NAME, "kpt.dev/other-anno-", R])).code).toBe(0);
    obj = await json(NAME);
    expect(obj.metadata.labels).toEqual({ "kpt.dev/other-label": "bar", "kpt.dev/latest-revision": "true" });
    expect(own(obj.metadata.annotations)).toEqual({ "kpt.dev/anno": "foo" });
    // readable by whoever reads the namespace: bob sees the same
    const asBob = JSON.parse((await w.rpkg(w.bob, ["get", NAME, R, "-o", "json"])).stdout);
    expect(asBob.metadata.labels).toEqual(obj.metadata.labels);

    // a clone is a revision of its own: none of them
    expect((await w.rpkg(w.alice, ["clone", NAME, "cloned-package", R, "--workspace=ws"])).code).toBe(0);
    const clone = await json("blueprints.cloned-package.ws");
    expect(clone.metadata.labels).toBeUndefined();
    expect(own(clone.metadata.annotations)).toEqual({});
  }, 120_000);

  it("refuses a new value without --overwrite, as kubectl label does, and takes it with it", async () => {
    const clash = await w.rpkg(w.alice, ["label", NAME, "kpt.dev/other-label=baz", R]);
    expect(clash).toEqual({
      code: 1,
      stdout: "",
      stderr: "Error: 'kpt.dev/other-label' already has a value (bar), and --overwrite is false \n",
    });
    expect((await w.rpkg(w.alice, ["label", NAME, "kpt.dev/other-label=baz", "--overwrite", R])).code).toBe(
      0,
    );
    expect((await json(NAME)).metadata.labels?.["kpt.dev/other-label"]).toBe("baz");
  }, 60_000);

  it.each([
    [["kpt.dev/latest-revision=false"], "kpt.dev/latest-revision is Porch's own label"],
    [["bad key=v"], 'invalid label key "bad key"'],
    [
      ["Kpt.Dev/x=v"],
      'invalid label key "Kpt.Dev/x": prefix part a lowercase RFC 1123 subdomain must consist',
    ],
    [["../../etc passwd=x"], 'invalid label key "../../etc passwd": a qualified name must consist'],
    [["k=has space"], 'invalid label value "has space" for k: a valid label must be an empty string'],
    [["k=a\u0000b"], 'invalid label value "a\\u0000b" for k'],
    [[`k=${"v".repeat(64)}`], "must be no more than 63 characters"],
    [["k"], '"k" is neither KEY=VALUE nor KEY-'],
  ])("refuses %j, saying what a label looks like", async (changes, message) => {
    const r = await w.rpkg(w.alice, ["label", NAME, ...changes, R]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
  });

  it("refuses an annotation key or annotations Kubernetes refuses, committing nothing; takes a key's capital prefix as it does", async () => {
    const head = async () =>
      (await w.octokit(w.alice).rest.repos.getBranch({ owner: "acme", repo: ".porchlight", branch: "main" }))
        .data.commit.sha;
    const before = await head();
    const key = await w.rpkg(w.alice, ["annotate", NAME, "../../etc passwd=x", R]);
    expect(key.code).toBe(2);
    expect(key.stderr).toContain('invalid annotation key "../../etc passwd": a qualified name must consist');
    // 200 KiB more, over what is there: each argument alone is under the limit, together they are not
    const big = await w.rpkg(w.alice, [
      "annotate",
      NAME,
      `a=${"x".repeat(200 * 1024)}`,
      `b=${"y".repeat(60 * 1024)}`,
      R,
    ]);
    expect(big.code).toBe(1);
    expect(big.stderr).toMatch(
      /the revision's annotations would come to 26\d{4} bytes \(keys and values\), over Kubernetes' limit of 262144 \(256 KiB\).*nothing was written/,
    );
    expect(await head()).toBe(before);
    // Kubernetes reads an annotation key in lower case, and takes any value
    expect((await w.rpkg(w.alice, ["annotate", NAME, "Example.COM/Owner=a b\tc", R])).code).toBe(0);
    expect(own((await json(NAME)).metadata.annotations)["Example.COM/Owner"]).toBe("a b\tc");
  }, 60_000);

  it("shows the Kptfile's labels and annotations as spec.packageMetadata, as Porch does", async () => {
    expect((await w.rpkg(w.alice, ["init", "meta", R, "--workspace=ws"])).code).toBe(0);
    const dir = join(w.tmp, "meta");
    expect((await w.rpkg(w.alice, ["pull", "blueprints.meta.ws", dir, R])).code).toBe(0);
    const kf = parse(readFileSync(join(dir, "Kptfile"), "utf8"));
    kf.metadata.labels = { app: "web", tier: 2 };
    kf.metadata.annotations = { ...kf.metadata.annotations, team: "platform" };
    writeFileSync(join(dir, "Kptfile"), stringify(kf));
    expect((await w.rpkg(w.alice, ["push", "blueprints.meta.ws", dir, R])).code).toBe(0);

    const r = await w.rpkg(w.alice, ["get", "blueprints.meta.ws", R, "-o", "json"]);
    expect(JSON.parse(r.stdout).spec.packageMetadata).toEqual({
      labels: { app: "web", tier: "2" },
      annotations: { "config.kubernetes.io/local-config": "true", team: "platform" },
    });
    // the revision's own metadata is apart from its package's
    expect(JSON.parse(r.stdout).metadata.labels).toBeUndefined();
  }, 60_000);
});
