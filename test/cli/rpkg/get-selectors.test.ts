import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { PORCH_COLUMNS, type RpkgWorld, rpkgWorld } from "./world.js";

const R = "--repository=acme/blueprints";

/**
 * `rpkg get --field-selector` and `-l`, as Porch's API e2e TestPackageRevisionFieldSelectors and
 * TestPackageRevisionLabelSelectors select: basens published as revision 1 in workspace v1 (labelled
 * kpt.dev/label=foo, its Kptfile labelled app=web), a draft of another package, and the registered
 * branch's revisions.
 */
describe("rpkg get selects by field and by label", () => {
  let w: RpkgWorld;
  const names = async (...flags: string[]) => {
    const r = await w.rpkg(w.alice, ["get", R, "--output=jsonpath={.items[*].metadata.name}", ...flags]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    return r.stdout.split(" ").filter(Boolean).sort();
  };

  beforeAll(async () => {
    w = await rpkgWorld();
    await w.forge.createRepo("acme/.porchlight", { autoInit: true });
    w.forge.setPermission("acme/.porchlight", "alice", "write");
    expect((await w.rpkg(w.alice, ["init", "basens", R, "--workspace=v1"])).code).toBe(0);
    const dir = join(w.tmp, "basens");
    expect((await w.rpkg(w.alice, ["pull", "blueprints.basens.v1", dir, R])).code).toBe(0);
    const kf = parse(readFileSync(join(dir, "Kptfile"), "utf8"));
    kf.metadata.labels = { app: "web" };
    writeFileSync(join(dir, "Kptfile"), stringify(kf));
    expect((await w.rpkg(w.alice, ["push", "blueprints.basens.v1", dir, R])).code).toBe(0);
    expect((await w.rpkg(w.alice, ["label", "blueprints.basens.v1", "kpt.dev/label=foo", R])).code).toBe(0);
    expect((await w.publish("acme/blueprints", "blueprints.basens.v1")).code).toBe(0);
    expect((await w.rpkg(w.alice, ["init", "other", R, "--workspace=ws"])).code).toBe(0);
  }, 120_000);
  afterAll(() => w.stop());

  it("selects by each of Porch's fields, and by several at once", async () => {
    expect(await names()).toEqual(["blueprints.basens.main", "blueprints.basens.v1", "blueprints.other.ws"]);
    expect(await names("--field-selector=spec.packageName=basens")).toEqual([
      "blueprints.basens.main",
      "blueprints.basens.v1",
    ]);
    expect(await names("--field-selector=spec.revision=1")).toEqual(["blueprints.basens.v1"]);
    expect(await names("--field-selector=spec.workspaceName=v1")).toEqual(["blueprints.basens.v1"]);
    expect(await names("--field-selector=spec.lifecycle=Published")).toEqual([
      "blueprints.basens.main",
      "blueprints.basens.v1",
    ]);
    expect(await names("--field-selector=spec.lifecycle==Draft")).toEqual(["blueprints.other.ws"]);
    expect(await names("--field-selector=spec.revision=1,spec.packageName=basens")).toEqual([
      "blueprints.basens.v1",
    ]);
    expect(await names("--field-selector=spec.lifecycle!=Published")).toEqual(["blueprints.other.ws"]);
    expect(await names("--field-selector=spec.repository=blueprints,spec.revision=-1")).toEqual([
      "blueprints.basens.main",
    ]);
    expect(await names("--field-selector=spec.repository=elsewhere")).toEqual([]);
    // the Kptfile's labels, Porch's spec.packageMetadata.labels[KEY]
    expect(await names("--field-selector=spec.packageMetadata.labels[app]=web")).toEqual([
      "blueprints.basens.main",
      "blueprints.basens.v1",
    ]);
  }, 60_000);

  it("selects by label: the revision's own, and Porch's latest-revision", async () => {
    expect(await names("-l", "kpt.dev/label=foo")).toEqual(["blueprints.basens.v1"]);
    expect(await names("-l", "kpt.dev/label=bar")).toEqual([]);
    expect(await names("--selector=kpt.dev/latest-revision=true")).toEqual(["blueprints.basens.v1"]);
    expect(await names("-l", "kpt.dev/label in (foo,bar),kpt.dev/latest-revision")).toEqual([
      "blueprints.basens.v1",
    ]);
    expect(await names("-l", "!kpt.dev/label")).toEqual(["blueprints.basens.main", "blueprints.other.ws"]);
    // selectors work on the table too
    const table = await w.rpkg(w.alice, ["get", R, "-l", "kpt.dev/label notin (foo)", "--no-headers"]);
    expect(
      table.stdout
        .split("\n")
        .filter(Boolean)
        .map((l) => l.split(/\s+/)[0]),
    ).toEqual(["blueprints.basens.main", "blueprints.other.ws"]);
  }, 60_000);

  it.each([
    [
      ["--field-selector=spec.lifecycle=Done"],
      'error: unsupported fieldSelector value "Done" for field "spec.lifecycle": a lifecycle is Draft, Proposed, Published, DeletionProposed\n',
    ],
    [
      ["--field-selector=spec.colour=red"],
      'error: "spec.colour" is not a known field selector: PackageRevisions are selected by metadata.name, metadata.namespace, spec.repository, spec.packageName, spec.workspaceName, spec.revision, spec.lifecycle and spec.packageMetadata.labels[KEY]\n',
    ],
    [
      ["--field-selector=spec.lifecycle"],
      "error: invalid selector: 'spec.lifecycle'; can't understand 'spec.lifecycle'\n",
    ],
    [
      ["-l", "app web"],
      `error: label selector "app web": unable to parse requirement: found 'web', expected: in, notin, =, ==, !=, gt, lt\n`,
    ],
  ])("refuses %j before reading anything", async (flags, stderr) => {
    expect(await w.rpkg(w.alice, ["get", R, ...flags])).toEqual({ code: 1, stdout: "", stderr });
  });

  it("prints as kubectl's flags ask: -o name, --show-kind, --show-labels, -L, --sort-by", async () => {
    const get = async (...flags: string[]) => {
      const r = await w.rpkg(w.alice, ["get", R, ...flags]);
      expect(r.stderr).toBe("");
      return r.stdout;
    };
    expect(await get("-o", "name", "--field-selector=spec.packageName=basens")).toBe(
      "packagerevision.porch.kpt.dev/blueprints.basens.main\npackagerevision.porch.kpt.dev/blueprints.basens.v1\n",
    );
    const kinds = await get("--show-kind", "--no-headers", "--field-selector=spec.revision=1");
    expect(kinds.split(/\s+/)[0]).toBe("packagerevision.porch.kpt.dev/blueprints.basens.v1");
    const labelled = await get(
      "--show-labels",
      "-L",
      "kpt.dev/label",
      "--field-selector=spec.packageName=basens",
    );
    expect(labelled.split("\n").map((l) => l.trim().split(/\s+/))).toEqual([
      [...PORCH_COLUMNS, "LABEL", "LABELS"],
      ["blueprints.basens.main", "basens", "main", "-1", "false", "Published", "blueprints", "<none>"],
      [
        "blueprints.basens.v1",
        "basens",
        "v1",
        "1",
        "true",
        "Published",
        "blueprints",
        "foo",
        "kpt.dev/label=foo,kpt.dev/latest-revision=true",
      ],
      [""],
    ]);
    // sorted by a field of the objects: revision numbers as numbers (a draft has none: first)
    const sorted = await get("--sort-by=.spec.revision", "-o", "name");
    expect(sorted.split("\n").filter(Boolean)).toEqual([
      "packagerevision.porch.kpt.dev/blueprints.other.ws",
      "packagerevision.porch.kpt.dev/blueprints.basens.main",
      "packagerevision.porch.kpt.dev/blueprints.basens.v1",
    ]);
    const byName = await get("--sort-by={.metadata.name}", "--no-headers");
    expect(
      byName
        .split("\n")
        .filter(Boolean)
        .map((l) => l.split(/\s+/)[0]),
    ).toEqual(["blueprints.basens.main", "blueprints.basens.v1", "blueprints.other.ws"]);
  }, 60_000);

  it("prints through -o jsonpath with {range} and -o go-template", async () => {
    const get = async (...flags: string[]) => (await w.rpkg(w.alice, ["get", R, ...flags])).stdout;
    expect(
      await get(
        '-o=jsonpath={range .items[*]}{.metadata.name}{"\\t"}{.spec.lifecycle}{"\\n"}{end}',
        "--sort-by=.metadata.name",
      ),
    ).toBe(
      "blueprints.basens.main\tPublished\nblueprints.basens.v1\tPublished\nblueprints.other.ws\tDraft\n",
    );
    expect(
      await get(
        '-o=go-template={{range .items}}{{if .spec.revision}}{{printf "%s=v%d\\n" .metadata.name .spec.revision}}{{end}}{{end}}',
        "--field-selector=spec.lifecycle=Published",
        "--sort-by=.spec.revision",
      ),
    ).toBe("blueprints.basens.main=v-1\nblueprints.basens.v1=v1\n");
    // one named revision: the template reads the object, as kubectl's does
    expect(
      await get(
        "blueprints.basens.v1",
        "-o",
        "go-template",
        '--template={{index .metadata.labels "kpt.dev/label"}}',
      ),
    ).toBe("foo");
    const bad = await w.rpkg(w.alice, ["get", R, "-o", "go-template={{range .items}}"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("has no {{end}}");
  }, 60_000);
});
