import { execFile, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPorchApi } from "../../src/cli/api.js";
import { kubeconfigYaml } from "../../src/cli/kubeconfig.js";
import { parseVariantPullRequestBody } from "../../src/variants/index.js";
import { publishDraft, startWorld, type World } from "../e2e/harness.js";
import { KUBECTL_MISSING } from "../util/kubectl.js";

const KPTFILE = "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: hello\n";
const cm = (v: string) =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: hello\ndata:\n  greeting: "${v}"\n`;
const registration = (name: string) => `apiVersion: config.porch.kpt.dev/v1alpha1
kind: Repository
metadata:
  name: ${name}
  namespace: acme
spec:
  content: Package
  type: git
  git:
    repo: acme/${name}
    branch: main
    directory: /
`;

/** A Porch user's PackageVariant, as they would kubectl apply it to Porch. */
const VARIANT = `apiVersion: config.porch.kpt.dev/v1alpha1
kind: PackageVariant
metadata:
  name: hello-01
  namespace: acme
spec:
  upstream:
    repo: blueprints
    package: hello
  downstream:
    repo: cluster-01
    package: hello
  annotations:
    owner: sre
`;
const SET = `apiVersion: config.porch.kpt.dev/v1alpha2
kind: PackageVariantSet
metadata:
  name: fleet
spec:
  upstream:
    repo: blueprints
    package: hello
    revision: -1
  targets:
  - repositories:
    - name: cluster-01
      packageNames: [hello-fleet]
`;

type User = "alice" | "rita";

/**
 * Issue 51's "a PackageVariant applied with kubectl opens its downstream pull request": Porch's
 * PackageVariant and PackageVariantSet through the real kubectl against Porch's API served over the forge,
 * with the app answering the forge's webhooks — the object applied is a variant file committed to the
 * upstream's repository as the caller, and publishing the upstream fans it out.
 */
describe.skipIf(KUBECTL_MISSING !== undefined)("PackageVariants with kubectl, fanned out by the app", () => {
  let w: World;
  let api: Awaited<ReturnType<typeof startPorchApi>>;
  let home: string;
  const kubectl = (user: User, args: string[], stdin?: string) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      const child = execFile(
        "kubectl",
        args,
        {
          env: { PATH: process.env.PATH ?? "", HOME: home, KUBECONFIG: join(home, `${user}.yaml`) },
          timeout: 60_000,
        },
        (err, stdout, stderr) =>
          resolve({ code: err ? (typeof err.code === "number" ? err.code : 1) : 0, stdout, stderr }),
      );
      if (stdin !== undefined) child.stdin?.end(stdin);
    });
  const rest = () => w.users.alice!.rest;
  /** The files of acme/blueprints' .porchlight/variants/ on main. */
  const variantFiles = async () => {
    const { data } = await rest().git.getTree({
      owner: "acme",
      repo: "blueprints",
      tree_sha: "main",
      recursive: "true",
    });
    const dir = ".porchlight/variants/";
    return data.tree.flatMap((e) => (e.path?.startsWith(dir) ? [e.path.slice(dir.length)] : [])).sort();
  };

  beforeAll(async () => {
    w = await startWorld({
      "README.md": "# blueprints\n",
      "hello/Kptfile": KPTFILE,
      "hello/cm.yaml": cm("draft"),
    });
    await w.forge.createRepo("acme/.porchlight", {
      files: {
        "repositories/blueprints.yaml": registration("blueprints"),
        "repositories/cluster-01.yaml": registration("cluster-01"),
      },
    });
    await w.forge.createRepo("acme/cluster-01", { files: { "README.md": "# cluster-01\n" } });
    for (const repo of ["acme/.porchlight", "acme/cluster-01"]) {
      w.forge.setPermission(repo, "alice", "write");
      w.forge.setPermission(repo, "rita", "read");
    }
    await w.settle();
    api = await startPorchApi({
      host: "127.0.0.1",
      port: 0,
      apiUrl: w.forge.apiUrl,
      env: { PORCHLIGHT_API_WATCH_POLL_MS: "100" },
    });
    home = mkdtempSync(join(tmpdir(), "porchlight-kube-"));
    for (const user of ["alice", "rita"] as const)
      writeFileSync(
        join(home, `${user}.yaml`),
        kubeconfigYaml({
          server: api.url,
          githubApiUrl: w.forge.apiUrl,
          name: "porchlight",
          user,
          token: w.users[user]?.pat ?? "",
          namespace: "acme",
          ...(api.caPem ? { caPem: api.caPem } : {}),
        }),
      );
  }, 120_000);
  afterAll(async () => {
    await api?.close();
    await w?.stop();
    if (home) rmSync(home, { recursive: true, force: true });
  });

  it("lists both kinds in discovery, PackageVariantSet at v1alpha2 as Porch serves it, and explains them", async () => {
    const r = await kubectl("rita", ["api-resources", "--api-group=config.porch.kpt.dev", "-o", "wide"]);
    expect(r.stderr).toBe("");
    const lines = r.stdout
      .trim()
      .split("\n")
      .slice(1)
      .map((l) => l.split(/\s+/).slice(0, 4).join(" "));
    expect(lines).toEqual([
      "packagevariants config.porch.kpt.dev/v1alpha1 true PackageVariant",
      "packagevariantsets config.porch.kpt.dev/v1alpha2 true PackageVariantSet",
      "repositories repo config.porch.kpt.dev/v1alpha1 true",
    ]);
    const explained = await kubectl("rita", ["explain", "packagevariant.spec.upstream.workspaceName"]);
    expect(explained.code).toBe(0);
    expect(explained.stdout).toMatch(/The revision published from that workspace/);
    const set = await kubectl("rita", ["explain", "packagevariantset.spec.targets.repositorySelector.names"]);
    expect(set.stdout).toMatch(/VERSION: +v1alpha2/);
    expect(set.stdout).toMatch(/porchlight's addition: repository names, any may match/);
  });

  it("refuses a reader's apply with 403 and an invalid spec with 422 naming the field; nothing is committed", async () => {
    const reader = await kubectl("rita", ["apply", "-f", "-"], VARIANT);
    expect(reader.code).toBe(1);
    expect(reader.stderr).toMatch(/\(Forbidden\)/);
    expect(reader.stderr).toMatch(/rita has read permission on acme\/blueprints/);
    const invalid = await kubectl(
      "alice",
      ["apply", "-f", "-"],
      VARIANT.replace("  annotations:", "  adoptionPolicy: adoptAll\n  annotations:"),
    );
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toMatch(/PackageVariant.* "hello-01" is invalid/);
    expect(invalid.stderr).toMatch(/spec\.adoptionPolicy/);
    const elsewhere = await kubectl(
      "alice",
      ["apply", "-f", "-"],
      VARIANT.replace("repo: blueprints", "repo: elsewhere"),
    );
    expect(elsewhere.code).toBe(1);
    expect(elsewhere.stderr).toMatch(
      /spec\.upstream\.repo: Invalid value: "elsewhere": no repository registered in namespace acme is elsewhere/,
    );
    expect(await variantFiles()).toEqual([]);
  });

  it("commits an applied PackageVariant to the upstream's variant files; publishing opens its downstream pull request", async () => {
    const applied = await kubectl("alice", ["apply", "-f", "-"], VARIANT);
    expect(applied).toMatchObject({
      code: 0,
      stdout: "packagevariant.config.porch.kpt.dev/hello-01 created\n",
    });
    expect(await variantFiles()).toEqual(["hello-01.yaml"]);
    // the upstream has no published revision yet: the status says so, not just "Pending"
    const unpublished = JSON.parse(
      (await kubectl("rita", ["get", "packagevariant", "hello-01", "-o", "json"])).stdout,
    ) as { status: { conditions: { type: string; status: string; reason: string; message: string }[] } };
    expect(unpublished.status.conditions).toEqual([
      {
        type: "Stalled",
        status: "True",
        reason: "ValidationError",
        message: expect.stringMatching(
          /^could not find upstream package revision: hello of blueprints has no published revision \(no tag hello\/vN in acme\/blueprints\)/,
        ),
      },
      {
        type: "Ready",
        status: "False",
        reason: "Error",
        message: expect.stringMatching(/no published revision/),
      },
    ]);

    await w.settle();
    await publishDraft(w, "drafts/hello/ws1", { "hello/cm.yaml": cm("one") });
    const pulls = (await rest().pulls.list({ owner: "acme", repo: "cluster-01", state: "open" })).data;
    expect(pulls.map((p) => [p.head.ref, parseVariantPullRequestBody(p.body)?.variant])).toEqual([
      ["porchlight/variant/hello/hello-01", "hello-01"],
    ]);

    const ready = await kubectl("rita", [
      "wait",
      "packagevariant/hello-01",
      "--for=condition=Ready",
      "--timeout=20s",
    ]);
    expect(ready).toMatchObject({
      code: 0,
      stdout: "packagevariant.config.porch.kpt.dev/hello-01 condition met\n",
    });
    const yaml = await kubectl("rita", ["get", "packagevariant", "hello-01", "-o", "yaml"]);
    expect(yaml.stdout).toContain("downstreamTargets:\n  - name: cluster-01.hello.hello-01\n");
    expect(yaml.stdout).toMatch(/reason: NoErrors/);
    expect(yaml.stdout).toMatch(/type: Stalled/);
    const listed = await kubectl("rita", ["get", "packagevariants"]);
    expect(listed.stdout).toBe("NAME\nhello-01\n");
  });

  /** One HTTPS request to the API as alice, its status and JSON body. */
  const call = (method: string, path: string, body?: unknown, type = "application/json") =>
    new Promise<{ status: number; body: Record<string, unknown> }>((resolve, reject) => {
      const req = request(
        `${api.url}${path}`,
        {
          method,
          ...(api.caPem ? { ca: api.caPem } : {}),
          headers: { authorization: `Bearer ${w.users.alice?.pat ?? ""}`, "content-type": type },
        },
        (res) => {
          let text = "";
          res.setEncoding("utf8");
          res.on("data", (c: string) => {
            text += c;
          });
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
        },
      );
      req.on("error", reject);
      req.end(body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body));
    });
  const PV = "/apis/config.porch.kpt.dev/v1alpha1/namespaces/acme/packagevariants";
  const second = (name: string, extra = "") =>
    VARIANT.replace("hello-01", name)
      .replace("repo: cluster-01\n    package: hello", `repo: cluster-01\n    package: ${name}`)
      .replace("metadata:\n", `metadata:\n${extra}`);
  const openPulls = async () =>
    (await rest().pulls.list({ owner: "acme", repo: "cluster-01", state: "open" })).data.map(
      (p) => p.head.ref,
    );

  it("fans out a variant applied with kubectl on its push, with no sweep: its downstream pull request opens", async () => {
    // the upstream is published (above); the app's sweep never runs in this world
    const applied = await kubectl("alice", ["apply", "-f", "-"], second("hello-02"));
    expect(applied.code).toBe(0);
    await w.settle();
    expect(await openPulls()).toContain("porchlight/variant/hello-02/hello-02");
  });

  it("keeps uid, creationTimestamp and porchlight's finalizer in git; serves the status subresource, each write to its own part", async () => {
    const read = async () =>
      JSON.parse((await kubectl("rita", ["get", "packagevariant", "hello-02", "-o", "json"])).stdout) as {
        metadata: Record<string, unknown>;
        spec: Record<string, unknown>;
        status: { conditions: { type: string; reason: string }[] };
      };
    const first = await read();
    expect(first.metadata.finalizers).toEqual(["config.porch.kpt.dev/packagevariants"]);
    expect(first.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(first.metadata.creationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const again = await read();
    expect([again.metadata.uid, again.metadata.creationTimestamp]).toEqual([
      first.metadata.uid,
      first.metadata.creationTimestamp,
    ]);

    const status = await call("GET", `${PV}/hello-02/status`);
    expect(status.status).toBe(200);
    expect((status.body.status as { conditions: unknown[] }).conditions).toEqual(first.status.conditions);
    // a write to /status changes no spec; a write to the object changes no status
    const viaStatus = await call(
      "PATCH",
      `${PV}/hello-02/status`,
      { spec: { annotations: { owner: "nobody" } }, status: { conditions: [] } },
      "application/merge-patch+json",
    );
    expect(viaStatus.status).toBe(200);
    expect((viaStatus.body.spec as { annotations: unknown }).annotations).toEqual({ owner: "sre" });
    expect((viaStatus.body.status as { conditions: unknown[] }).conditions).toEqual(first.status.conditions);
    const viaObject = await call(
      "PATCH",
      `${PV}/hello-02`,
      { spec: { annotations: { owner: "sre", tier: "edge" } }, status: { conditions: [] } },
      "application/merge-patch+json",
    );
    expect(viaObject.status).toBe(200);
    expect((viaObject.body.spec as { annotations: unknown }).annotations).toEqual({
      owner: "sre",
      tier: "edge",
    });
    expect((viaObject.body.status as { conditions: unknown[] }).conditions).toEqual(first.status.conditions);
    const discovery = await call("GET", "/apis/config.porch.kpt.dev/v1alpha1");
    expect(
      (discovery.body.resources as { name: string; verbs: string[] }[]).find(
        (r) => r.name === "packagevariants/status",
      )?.verbs,
    ).toEqual(["get", "patch", "update"]);
  });

  it("keeps one managedFields entry per manager: two server-side applies by kubectl, then kubectl label's update", async () => {
    const doc = second("hello-03");
    for (const text of [doc, doc.replace("owner: sre", "owner: platform")]) {
      const applied = await kubectl("alice", ["apply", "--server-side", "-f", "-"], text);
      expect(applied.stderr).toBe("");
    }
    const labelled = await kubectl("alice", ["label", "packagevariant", "hello-03", "tier=edge"]);
    expect(labelled.code).toBe(0);
    const obj = JSON.parse(
      (await kubectl("rita", ["get", "packagevariant", "hello-03", "-o", "json", "--show-managed-fields"]))
        .stdout,
    ) as {
      metadata: { managedFields: Record<string, unknown>[]; annotations?: Record<string, string> };
      spec: { annotations: Record<string, string> };
    };
    expect(obj.spec.annotations).toEqual({ owner: "platform" });
    expect(obj.metadata.annotations?.["porchlight.dev/managed-fields"]).toBeUndefined();
    expect(
      obj.metadata.managedFields.map((e) => [e.manager, e.operation, e.apiVersion, e.fieldsType]),
    ).toEqual([
      ["kubectl", "Apply", "config.porch.kpt.dev/v1alpha1", "FieldsV1"],
      ["kubectl-label", "Update", "config.porch.kpt.dev/v1alpha1", "FieldsV1"],
    ]);
    expect(obj.metadata.managedFields[0]?.fieldsV1).toMatchObject({
      "f:spec": { "f:annotations": { "f:owner": {} }, "f:downstream": { "f:package": {}, "f:repo": {} } },
    });
    expect(obj.metadata.managedFields[1]?.fieldsV1).toEqual({
      "f:metadata": { "f:labels": { "f:tier": {} } },
    });
    expect(obj.metadata.managedFields[0]?.time).toMatch(/Z$/);
    // kept in git with the object
    const { data } = await rest().repos.getContent({
      owner: "acme",
      repo: "blueprints",
      path: ".porchlight/variants/hello-03.yaml",
    });
    const text = Buffer.from((data as { content: string }).content, "base64").toString("utf8");
    expect(text).toMatch(/managedFields:\n/);
    expect(text.match(/manager: kubectl\n/g)).toHaveLength(1);
  });

  it("marks a variant with finalizers for deletion; fan-out acts by its deletionPolicy and releases its finalizer; the last one removed, it is gone", async () => {
    await w.settle();
    expect(await openPulls()).toContain("porchlight/variant/hello-03/hello-03");
    const held = await kubectl("alice", [
      "patch",
      "packagevariant",
      "hello-03",
      "--type=merge",
      "-p",
      '{"metadata":{"finalizers":["example.com/hold","config.porch.kpt.dev/packagevariants"]}}',
    ]);
    expect(held.code).toBe(0);
    await w.settle();
    const deleted = await call("DELETE", `${PV}/hello-03`);
    expect(deleted.status).toBe(200);
    expect(deleted.body.kind).toBe("PackageVariant");
    const meta = deleted.body.metadata as Record<string, unknown>;
    expect(meta.deletionTimestamp).toMatch(/Z$/);
    expect(meta.deletionGracePeriodSeconds).toBe(0);
    expect(meta.finalizers).toEqual(["example.com/hold", "config.porch.kpt.dev/packagevariants"]);
    // the push fans out: the never-published downstream pull request is discarded (deletionPolicy
    // delete), and porchlight's finalizer comes off; the other holds the object
    await w.settle();
    expect(await openPulls()).not.toContain("porchlight/variant/hello-03/hello-03");
    const left = JSON.parse(
      (await kubectl("rita", ["get", "packagevariant", "hello-03", "-o", "json"])).stdout,
    ) as {
      metadata: Record<string, unknown>;
    };
    expect(left.metadata.finalizers).toEqual(["example.com/hold"]);
    expect(left.metadata.deletionTimestamp).toBe(meta.deletionTimestamp);
    const added = await kubectl("alice", [
      "patch",
      "packagevariant",
      "hello-03",
      "--type=json",
      "-p",
      '[{"op":"add","path":"/metadata/finalizers/-","value":"example.com/more"}]',
    ]);
    expect(added.code).toBe(1);
    expect(added.stderr).toMatch(
      /metadata\.finalizers: Forbidden: no new finalizers can be added if the object is being deleted/,
    );
    const released = await kubectl("alice", [
      "patch",
      "packagevariant",
      "hello-03",
      "--type=json",
      "-p",
      '[{"op":"remove","path":"/metadata/finalizers"}]',
    ]);
    expect(released.code).toBe(0);
    const gone = await kubectl("rita", ["get", "packagevariant", "hello-03"]);
    expect(gone.stderr).toMatch(/NotFound/);
    expect(await variantFiles()).not.toContain("hello-03.yaml");
  });

  it("applies, reads and deletes a PackageVariantSet; deleting the last variant keeps the directory for fan-out", async () => {
    const applied = await kubectl("alice", ["apply", "-f", "-"], SET);
    expect(applied).toMatchObject({
      code: 0,
      stdout: "packagevariantset.config.porch.kpt.dev/fleet created\n",
    });
    const stalled = await kubectl("rita", [
      "get",
      "packagevariantset",
      "fleet",
      "-o",
      'jsonpath={.status.conditions[?(@.type=="Stalled")].reason}',
    ]);
    expect(stalled.stdout).toBe("Valid");
    const refused = await kubectl("rita", ["delete", "packagevariant", "hello-01"]);
    expect(refused.stderr).toMatch(/\(Forbidden\)/);
    for (const [kind, name] of [
      ["packagevariantset", "fleet"],
      ["packagevariant", "hello-01"],
      ["packagevariant", "hello-02"],
    ] as const) {
      const deleted = await kubectl("alice", ["delete", kind, name]);
      expect(deleted).toMatchObject({ code: 0, stdout: `${kind}.config.porch.kpt.dev "${name}" deleted\n` });
    }
    expect(await variantFiles()).toEqual(["README.md"]);
    expect((await kubectl("rita", ["get", "packagevariants"])).stderr).toBe(
      "No resources found in acme namespace.\n",
    );
  });

  it("watches a hand-written file pushed with git, labels one of its documents in place, keeping the others' bytes; a stale replace is 409", async () => {
    const other =
      "# the team's variants\n" +
      VARIANT.replace("hello-01", "team-a").replace(
        "package: hello\n  annotations",
        "package: team-a\n  annotations",
      );
    const mine = VARIANT.replace("hello-01", "team-b").replace(
      "package: hello\n  annotations",
      "package: team-b\n  annotations",
    );
    const watch = spawn("kubectl", ["get", "packagevariants", "-w", "--output-watch-events"], {
      env: { PATH: process.env.PATH ?? "", HOME: home, KUBECONFIG: join(home, "rita.yaml") },
    });
    let events = "";
    watch.stdout.on("data", (c: Buffer) => {
      events += c.toString();
    });
    try {
      // a file pushed with git, outside the API, is seen by a watch
      await (await w.clone("alice")).push("main", {
        ".porchlight/variants/team.yaml": `${other}---\n${mine}`,
      });
      while (!events.includes("team-b")) await new Promise((resolve) => setTimeout(resolve, 50));
      // ADDED, or MODIFIED when the push landed between kubectl's list and its watch (docs/porch-api.md)
      const lines = events
        .trim()
        .split("\n")
        .map((l) => l.split(/\s+/));
      expect(lines[0]).toEqual(["EVENT", "NAME"]);
      expect(lines.slice(1).map(([, name]) => name)).toEqual(["team-a", "team-b"]);
      for (const [type] of lines.slice(1)) expect(["ADDED", "MODIFIED"]).toContain(type);
    } finally {
      watch.kill();
    }
    await w.settle();
    const listed = await kubectl("rita", ["get", "packagevariants", "-o", "name"]);
    expect(listed.stdout).toBe(
      "packagevariant.config.porch.kpt.dev/team-a\npackagevariant.config.porch.kpt.dev/team-b\n",
    );

    const labelled = await kubectl("alice", ["label", "packagevariant", "team-b", "tier=edge"]);
    expect(labelled).toMatchObject({
      code: 0,
      stdout: "packagevariant.config.porch.kpt.dev/team-b labeled\n",
    });
    const { data } = await rest().repos.getContent({
      owner: "acme",
      repo: "blueprints",
      path: ".porchlight/variants/team.yaml",
    });
    const text = Buffer.from((data as { content: string }).content, "base64").toString("utf8");
    const [first, second] = text.split(/^---\n/m);
    expect(first).toBe(other);
    expect(second).toMatch(/labels:\n {4}tier: edge\n/);
    expect(second).toMatch(/name: team-b/);

    const saved = (await kubectl("alice", ["get", "packagevariant", "team-a", "-o", "json"])).stdout;
    const annotated = await kubectl("alice", ["annotate", "packagevariant", "team-a", "reviewed=yes"]);
    expect(annotated.code).toBe(0);
    const stale = await kubectl("alice", ["replace", "-f", "-"], saved);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toMatch(
      /Operation cannot be fulfilled on packagevariants.config.porch.kpt.dev "team-a": the object has been modified/,
    );
  });
});
