import { describe, expect, it } from "vitest";
import { downstreamState } from "../../src/variants/downstream-state.js";
import { parseVariantFile } from "../../src/variants/parse.js";
import { planFanout } from "../../src/variants/plan.js";
import type { DownstreamPackageState, SourceIndex } from "../../src/variants/plan-types.js";
import type { PackageVariant } from "../../src/variants/schema.js";
import { variantSpecHash } from "../../src/variants/tracking.js";
import { codeBlock } from "../util/codeblock.js";
import { variantDoc } from "../util/krm.js";

const IMAGE = "oci://registry.example/blueprints/web";
const D = (c: string) => `sha256:${c.repeat(64)}`;

function pv(oci: string): PackageVariant {
  const text = variantDoc(
    "a",
    `{oci: "${oci}"}`,
    codeBlock`
      downstream: {repo: cluster-01, package: web}
  `,
  );
  const { variants, problems } = parseVariantFile("v.yaml", text, { managementRepo: "blueprints" });
  expect(problems).toEqual([]);
  return (variants[0] as { variant: PackageVariant }).variant;
}

describe("planFanout with an OCI upstream", () => {
  const stable = pv(`${IMAGE}//apps/web:stable`);
  const hash = variantSpecHash(stable);
  const resolved: SourceIndex = { "registry.example/blueprints/web:stable": { digest: D("b") } };
  const plan = (state: DownstreamPackageState | undefined, variant = stable, oci = resolved) =>
    planFanout({
      variants: [variant],
      upstream: {},
      sources: oci,
      downstream: state ? { a: state } : {},
    }).actions[0];
  const at = (digest: string, extra: Partial<DownstreamPackageState> = {}): DownstreamPackageState => ({
    exists: true,
    lockedDigest: digest,
    managedBy: "a",
    specHash: hash,
    ...extra,
  });

  it.each<{ name: string; state?: DownstreamPackageState; expected: object }>([
    {
      name: "clones the digest the tag resolves to into a downstream that does not exist",
      expected: {
        kind: "clone",
        to: D("b"),
        toCommit: D("b"),
        source: { source: `${IMAGE}//apps/web:stable`, digest: D("b") },
        upstream: { repo: IMAGE, package: "apps/web" },
        reason: `cluster-01/web does not exist yet: clone ${IMAGE}//apps/web:stable sha256:bbbbbbbbbbbb`,
      },
    },
    {
      name: "does nothing when the lock is at that digest",
      state: at(D("b")),
      expected: { kind: "nothing", deployed: D("b"), reason: "up to date at sha256:bbbbbbbbbbbb" },
    },
    {
      name: "updates from the locked digest when the tag moved",
      state: at(D("a")),
      expected: { kind: "update", from: D("a"), to: D("b") },
    },
    {
      name: "waits on the open pull request proposing that digest",
      state: at(D("a"), {
        pullRequest: { number: 4, kind: "update", targetRevision: D("b"), specHash: hash },
      }),
      expected: { kind: "nothing", pullRequest: 4, held: "approval" },
    },
    {
      name: "refreshes an open pull request proposing an older digest",
      state: at(D("a"), {
        pullRequest: { number: 4, kind: "update", targetRevision: D("c"), specHash: hash },
      }),
      expected: { kind: "update", from: D("a"), to: D("b"), pullRequest: 4 },
    },
    {
      name: "does not propose again a digest whose pull request a person closed",
      state: at(D("a"), { declined: { number: 5, targetRevision: D("b"), reapply: false } }),
      expected: { kind: "skip", why: "declined", pullRequest: 5 },
    },
    {
      name: "proposes the next digest after a closed pull request, once the tag moved on",
      state: at(D("a"), { declined: { number: 5, targetRevision: D("c"), reapply: false } }),
      expected: { kind: "update", from: D("a"), to: D("b") },
    },
    {
      name: "skips a downstream whose lock is on git, naming what it needs",
      state: { exists: true, lockedRevision: "v2", managedBy: "a", specHash: hash },
      expected: {
        kind: "skip",
        reason: expect.stringMatching(/no upstream lock on a content digest of oci:/),
      },
    },
  ])("$name", ({ state, expected }) => {
    expect(plan(state)).toMatchObject(expected);
  });

  it("skips, with the registry's answer, when the tag could not be resolved; nothing is deleted", () => {
    const action = plan(at(D("a")), stable, {
      "registry.example/blueprints/web:stable": { problem: "cannot resolve …: HTTP 503" },
    });
    expect(action).toMatchObject({ kind: "skip", why: "problem", reason: "cannot resolve …: HTTP 503" });
  });

  it("a pinned digest needs no resolving", () => {
    const pinned = pv(`${IMAGE}@${D("c")}`);
    expect(plan(undefined, pinned, {})).toMatchObject({ kind: "clone", to: D("c") });
  });

  it("reads the lock from the Kptfile pkg get writes: level-triggered, from the downstream alone", () => {
    const kptfile = codeBlock`
      apiVersion: kpt.dev/v1
      kind: Kptfile
      metadata:
        name: web
        annotations:
          porchlight.dev/upstream: ${IMAGE}//apps/web:stable
          porchlight.dev/upstream-lock: ${IMAGE}//apps/web@${D("b")}
          porchlight.dev/package-variant: a
          porchlight.dev/variant-spec-hash: ${hash}
    `;
    const state = downstreamState(kptfile);
    expect(state).toMatchObject({ exists: true, lockedDigest: D("b"), managedBy: "a" });
    expect(plan(state)).toMatchObject({ kind: "nothing" });
  });
});

describe("planFanout with a tarball upstream", () => {
  const URL = "https://example.com/releases/web.tar.gz";
  const tarball = (source: string): PackageVariant => {
    const { variants, problems } = parseVariantFile(
      "v.yaml",
      variantDoc(
        "a",
        `{tarball: "${source}"}`,
        codeBlock`
          downstream: {repo: cluster-01, package: web}
      `,
      ),
      { managementRepo: "blueprints" },
    );
    expect(problems).toEqual([]);
    return (variants[0] as { variant: PackageVariant }).variant;
  };
  const kptfile = (lock: string) =>
    `apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: web\n  annotations:\n    porchlight.dev/upstream: ${URL}\n    porchlight.dev/upstream-lock: ${lock}\n    porchlight.dev/package-variant: a\n`;

  it("an unpinned URL: planned from the digest of its content this run, against the downstream's lock", () => {
    const v = tarball(URL);
    const sources: SourceIndex = { [URL]: { digest: D("b") } };
    const state = (digest: string) => ({
      ...downstreamState(kptfile(`${URL}#sha256=${digest.slice(7)}`)),
      specHash: variantSpecHash(v),
    });
    const plan = (s?: DownstreamPackageState) =>
      planFanout({ variants: [v], upstream: {}, sources, downstream: s ? { a: s } : {} }).actions[0];
    expect(plan()).toMatchObject({
      kind: "clone",
      to: D("b"),
      source: { source: URL, digest: D("b") },
      upstream: { repo: URL, package: "" },
    });
    expect(plan(state(D("b")))).toMatchObject({ kind: "nothing", deployed: D("b") });
    expect(plan(state(D("a")))).toMatchObject({ kind: "update", from: D("a"), to: D("b") });
    // The server down: the variant waits with the server's answer, nothing is deleted.
    expect(
      planFanout({
        variants: [v],
        upstream: {},
        sources: { [URL]: { problem: `cannot read ${URL}: HTTP 503` } },
        downstream: { a: state(D("a")) },
      }).actions[0],
    ).toMatchObject({ kind: "skip", why: "problem", reason: `cannot read ${URL}: HTTP 503` });
  });

  it("a pinned URL is its pin: planned without any request", () => {
    const v = tarball(`${URL}//web#sha256=${"c".repeat(64)}`);
    expect(planFanout({ variants: [v], upstream: {}, downstream: {} }).actions[0]).toMatchObject({
      kind: "clone",
      to: D("c"),
      upstream: { repo: URL, package: "web" },
    });
  });
});
