import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { KUBECTL_MISSING } from "../util/kubectl.js";
import { type ApiWorld, apiWorld } from "./world.js";

const PV = "/apis/config.porch.kpt.dev/v1alpha1/namespaces/acme/packagevariants";
const PORCHLIGHT_FINALIZER = "config.porch.kpt.dev/packagevariants";

/** A PackageVariant of acme/blueprints' hello into acme/deploy, kept in blueprints' variant files. */
const variant = (name: string, extra = "") => `apiVersion: config.porch.kpt.dev/v1alpha1
kind: PackageVariant
metadata:
  name: ${name}
  namespace: acme
${extra}spec:
  upstream:
    repo: blueprints
    package: hello
  downstream:
    repo: deploy
    package: ${name}
`;

/**
 * Issue 75: a write to a PackageVariant conflicts only when that object changed since it was read (or,
 * for a create, when its name is taken), as 409 means in Kubernetes — never because another variant, the
 * bot or a person moved the management repository's branch meanwhile; and an object being deleted stays
 * until its last finalizer is removed, whoever removes them.
 */
describe.skipIf(KUBECTL_MISSING !== undefined)("PackageVariant writes through Porch's API", () => {
  let w: ApiWorld;

  beforeAll(async () => {
    w = await apiWorld({ watchPollMs: 100 });
  }, 120_000);
  afterAll(() => w.stop());
  // a fault a failing test left unspent holds no other test's push
  afterEach(() => w.forge.faults.clear());

  /** One HTTPS request as alice, with a JSON body; its status and parsed answer. */
  const call = async (method: string, path: string, body?: unknown, type = "application/json") => {
    const r = await w.request(path, {
      token: w.alice,
      method,
      headers: { "content-type": type },
      ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) }),
    });
    return { status: r.status, body: JSON.parse(r.body) as Record<string, unknown> & { metadata?: Meta } };
  };
  type Meta = Record<string, unknown> & { finalizers?: string[]; resourceVersion?: string };
  const get = (name: string) => call("GET", `${PV}/${name}`);
  /** The next push to any repository held at the forge, until the test lets it go. */
  const holdNextPush = async () =>
    w.forge.faults.add({
      route: "/{owner}/{repo}.git/git-receive-pack",
      method: "POST",
      hang: true,
      times: 1,
    });
  const until = async (what: string, ok: () => boolean) => {
    await w.forge.waitFor(() => ok() || undefined, what);
  };
  /** A commit to blueprints' default branch by someone else (bob, or the bot), through REST, not the API. */
  const commitBeside = (path: string, text: string, token = w.bob) =>
    w.octokit(token).rest.repos.createOrUpdateFileContents({
      owner: "acme",
      repo: "blueprints",
      path,
      message: `Update ${path}`,
      content: Buffer.from(text).toString("base64"),
    });

  it("applies two PackageVariants at the same moment, one server-side as flux: both are created", async () => {
    // the first push waits at the forge until the other write has landed: the two were planned on one head
    const held = await holdNextPush();
    const writes = [
      w.kubectl("alice", ["apply", "-f", "-"], { stdin: variant("edge-a") }),
      w.kubectl("bob", ["apply", "--server-side", "--field-manager=flux", "-f", "-"], {
        stdin: variant("edge-b"),
      }),
    ];
    await until("a push held", () => w.forge.faults.holding(held) > 0);
    // the other write pushes past it (the fault is spent), and finishes first
    await Promise.race(writes);
    w.forge.faults.release(held);
    const [a, b] = await Promise.all(writes);
    expect(a).toMatchObject({ code: 0, stdout: "packagevariant.config.porch.kpt.dev/edge-a created\n" });
    expect(b).toMatchObject({
      code: 0,
      stdout: "packagevariant.config.porch.kpt.dev/edge-b serverside-applied\n",
    });
    const listed = await w.kubectl("carol", ["get", "packagevariants", "-o", "name"]);
    expect(listed.stdout).toBe(
      "packagevariant.config.porch.kpt.dev/edge-a\npackagevariant.config.porch.kpt.dev/edge-b\n",
    );
  });

  it("creates a PackageVariant by POST while someone else's commit lands on the management branch", async () => {
    const held = await holdNextPush();
    const created = call("POST", PV, parse(variant("edge-c")));
    await until("the create's push held", () => w.forge.faults.holding(held) > 0);
    await commitBeside("notes/dashboard.md", "# fan-out\n");
    w.forge.faults.release(held);
    const r = await created;
    expect([r.status, r.body.metadata?.name]).toEqual([201, "edge-c"]);
    expect((await get("edge-c")).status).toBe(200);
    // the other commit stays: the create was made on top of it
    const { data } = await w.octokit(w.alice).rest.repos.getContent({
      owner: "acme",
      repo: "blueprints",
      path: "notes/dashboard.md",
    });
    expect(Buffer.from((data as { content: string }).content, "base64").toString()).toBe("# fan-out\n");
  });

  it("updates a PackageVariant while another variant is written; a stale resourceVersion of it still conflicts", async () => {
    const read = (await get("edge-a")).body;
    const held = await holdNextPush();
    const labelled = call(
      "PATCH",
      `${PV}/edge-a`,
      { metadata: { labels: { tier: "edge" }, resourceVersion: read.metadata?.resourceVersion } },
      "application/merge-patch+json",
    );
    await until("the label's push held", () => w.forge.faults.holding(held) > 0);
    const other = await w.kubectl("bob", ["label", "packagevariant", "edge-b", "tier=core"]);
    expect(other.code).toBe(0);
    w.forge.faults.release(held);
    const r = await labelled;
    expect([r.status, r.body.metadata?.labels]).toEqual([200, { tier: "edge" }]);

    // edge-a itself changed since `read`: a write with that version is refused, as the API server's
    const stale = await call("PUT", `${PV}/edge-a`, read);
    expect(stale.status).toBe(409);
    expect(stale.body.message).toMatch(
      /Operation cannot be fulfilled on packagevariants.config.porch.kpt.dev "edge-a": the object has been modified/,
    );
  });

  it("gives up on a branch that moves under every push with ServerTimeout, writing nothing", async () => {
    // every push of the write is held, and each time someone else's commit lands before it goes on
    const held = w.forge.faults.add({
      route: "/{owner}/{repo}.git/git-receive-pack",
      method: "POST",
      hang: true,
    });
    const created = call("POST", PV, parse(variant("edge-t")));
    for (let push = 1; push <= 5; push++) {
      await until(`push ${push} held`, () => w.forge.faults.holding(held) > 0);
      await commitBeside(`notes/busy-${push}.md`, `# commit ${push}\n`);
      w.forge.faults.release(held);
    }
    const r = await created;
    expect([r.status, r.body.reason, r.body.details]).toEqual([
      500,
      "ServerTimeout",
      { name: "edge-t", group: "config.porch.kpt.dev", kind: "packagevariants", retryAfterSeconds: 1 },
    ]);
    expect(r.body.message).toMatch(/main of acme\/blueprints moved under each of 5 pushes/);
    w.forge.faults.remove(held);
    expect((await get("edge-t")).status).toBe(404);
  });

  it("refuses a write whose own document changed between its read and its push", async () => {
    const read = (await get("edge-b")).body;
    const held = await holdNextPush();
    const annotated = call(
      "PATCH",
      `${PV}/edge-b`,
      { metadata: { annotations: { reviewed: "yes" }, resourceVersion: read.metadata?.resourceVersion } },
      "application/merge-patch+json",
    );
    await until("the annotation's push held", () => w.forge.faults.holding(held) > 0);
    // bob edits edge-b's own file with git's REST API meanwhile
    const { data } = await w.octokit(w.bob).rest.repos.getContent({
      owner: "acme",
      repo: "blueprints",
      path: ".porchlight/variants/edge-b.yaml",
    });
    const text = Buffer.from((data as { content: string }).content, "base64").toString();
    await w.octokit(w.bob).rest.repos.createOrUpdateFileContents({
      owner: "acme",
      repo: "blueprints",
      path: ".porchlight/variants/edge-b.yaml",
      message: "Pause edge-b",
      content: Buffer.from(text.replace("spec:\n", "spec:\n  paused: true\n")).toString("base64"),
      sha: (data as { sha: string }).sha,
    });
    w.forge.faults.release(held);
    const r = await annotated;
    expect(r.status).toBe(409);
    expect(r.body.reason).toBe("Conflict");
    expect(r.body.message).toMatch(/"edge-b": the object has been modified/);
    const now = (await get("edge-b")).body as { spec?: { paused?: boolean }; metadata?: Meta };
    expect([now.spec?.paused, (now.metadata?.annotations as Record<string, string>)?.reviewed]).toEqual([
      true,
      undefined,
    ]);
  });

  it("keeps a PackageVariant being deleted until its last finalizer is removed, whoever removes them", async () => {
    const finalizers = "  finalizers:\n  - example.com/keep\n  - example.com/other\n";
    expect(
      (await w.kubectl("alice", ["apply", "-f", "-"], { stdin: variant("edge-f", finalizers) })).code,
    ).toBe(0);
    const deleted = await call("DELETE", `${PV}/edge-f`);
    expect(deleted.status).toBe(200);
    expect(deleted.body.metadata?.finalizers).toEqual([
      "example.com/keep",
      "example.com/other",
      PORCHLIGHT_FINALIZER,
    ]);
    const remove = (finalizer: string) =>
      w.kubectl("alice", [
        "patch",
        "packagevariant",
        "edge-f",
        "--type=json",
        "-p",
        JSON.stringify([
          { op: "test", path: "/metadata/finalizers/0", value: finalizer },
          { op: "remove", path: "/metadata/finalizers/0" },
        ]),
        "-o",
        "json",
      ]);

    // the client's own finalizer comes off, while the bot commits to the variant files: the object stays,
    // marked, with the others
    const held = await holdNextPush();
    const removing = remove("example.com/keep");
    await until("the removal's push held", () => w.forge.faults.holding(held) > 0);
    await commitBeside(".porchlight/variants/README.md", "# Variant files\n", w.bot);
    w.forge.faults.release(held);
    const kept = await removing;
    expect(kept.stderr).toBe("");
    const meta = (JSON.parse(kept.stdout) as { metadata: Meta }).metadata;
    expect([meta.deletionTimestamp, meta.finalizers]).toEqual([
      deleted.body.metadata?.deletionTimestamp,
      ["example.com/other", PORCHLIGHT_FINALIZER],
    ]);
    expect((await get("edge-f")).body.metadata?.finalizers).toEqual([
      "example.com/other",
      PORCHLIGHT_FINALIZER,
    ]);
    const listed = await w.kubectl("carol", ["get", "packagevariants", "-o", "name"]);
    expect(listed.stdout).toContain("packagevariant.config.porch.kpt.dev/edge-f\n");

    // a third party's, then porchlight's own: the last one gone, so is the object
    expect((await remove("example.com/other")).code).toBe(0);
    expect((await get("edge-f")).body.metadata?.finalizers).toEqual([PORCHLIGHT_FINALIZER]);
    const last = await remove(PORCHLIGHT_FINALIZER);
    expect(last.stderr).toBe("");
    expect((JSON.parse(last.stdout) as { metadata: Meta }).metadata.name).toBe("edge-f");
    expect((await get("edge-f")).status).toBe(404);
  });

  it("keeps the other finalizers when a field manager applies its own away from a PackageVariant being deleted", async () => {
    const flux = (text: string) =>
      w.kubectl("alice", ["apply", "--server-side", "--field-manager=flux", "-f", "-"], { stdin: text });
    const held = "  finalizers:\n  - example.com/keep\n";
    expect((await flux(variant("edge-s", held))).stderr).toBe("");
    // another controller holds it too
    const other = await call(
      "PATCH",
      `${PV}/edge-s`,
      [{ op: "add", path: "/metadata/finalizers/-", value: "example.com/other" }],
      "application/json-patch+json",
    );
    expect(other.body.metadata?.finalizers).toEqual([
      "example.com/keep",
      PORCHLIGHT_FINALIZER,
      "example.com/other",
    ]);
    // flux applies the same again: the others stay
    expect((await flux(variant("edge-s", held))).stderr).toBe("");
    expect((await get("edge-s")).body.metadata?.finalizers).toEqual([
      "example.com/keep",
      PORCHLIGHT_FINALIZER,
      "example.com/other",
    ]);
    expect((await call("DELETE", `${PV}/edge-s`)).status).toBe(200);
    // flux lets go of its own: the object stays for the others
    const released = await flux(variant("edge-s"));
    // (kubectl warns of the apply to an object being deleted, as it does against the API server)
    expect(released).toMatchObject({
      code: 0,
      stderr: "Warning: Detected changes to resource edge-s which is currently being deleted.\n",
    });
    const left = await get("edge-s");
    expect([left.status, left.body.metadata?.finalizers]).toEqual([
      200,
      [PORCHLIGHT_FINALIZER, "example.com/other"],
    ]);
    expect(left.body.metadata?.deletionTimestamp).toMatch(/Z$/);
  });
});
