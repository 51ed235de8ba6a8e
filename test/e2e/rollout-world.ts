import { expect } from "vitest";
import { packageVariant, settings } from "../util/krm.js";
import { useStarted } from "../util/use-started.js";
import { publishDraft, startWorld, sweep, sweepWrites, type World, type WorldOptions } from "./harness.js";

/**
 * A management repository `acme/blueprints` whose packages each fan out, through one PackageVariant
 * labelled `env: dev`, to the downstream repository `acme/dev-1` — the world of the rollout e2e files
 * that exercise one step (limits, hold/resume, automerge), with the readers they all ask the same
 * questions with.
 */
export interface DevRollout {
  w: World;
  /** The open fan-out pull requests in dev-1. */
  openPulls(): ReturnType<typeof listVariantPulls>;
  /** Their head branches, sorted. */
  openBranches(): Promise<string[]>;
  /** The rollout's dashboard issue (exactly one). */
  dashboard(): Promise<{ number: number; body?: string | null; labels: (string | { name?: string })[] }>;
  /** The dashboard issue's label names. */
  labels(): Promise<(string | undefined)[]>;
  /** Proposes `v` as the package's ConfigMap and has bob `/approve` it; throws unless it published. */
  publish(pkg: string, v: string): Promise<void>;
  /** Alice merges every open fan-out pull request in dev-1. */
  mergeAll(): Promise<void>;
  /** A sweep, settled. */
  sweep(): Promise<void>;
  /** A sweep, and the writes it made. */
  writesOfSweep(): Promise<string[]>;
}

/** The ConfigMap `settings`, holding `v`. */
export const settingsConfigMap = settings;

/** The PackageVariant that fans package `pkg` (channel stable) out to dev-1, named `dev-1-<pkg>`. */
export const devVariant = (pkg: string) =>
  packageVariant({ name: `dev-1-${pkg}`, labels: "{env: dev}", upstream: pkg, repo: "dev-1" });

const OWNER = "acme";

async function listVariantPulls(w: World) {
  const { data } = await w.users.alice!.rest.pulls.list({ owner: OWNER, repo: "dev-1", state: "open" });
  return data.filter((p) => p.head.ref.startsWith("porchlight/variant/"));
}

/**
 * Starts the world: `config` as .github/porchlight.yml, one package per name in `packages` (a Kptfile
 * and the ConfigMap at "0"), each with its dev variant, and dev-1 where alice may write.
 */
export async function startDevRollout(
  config: string,
  packages: string[],
  opts: WorldOptions = {},
): Promise<DevRollout> {
  const files: Record<string, string> = {
    ".github/porchlight.yml": config,
    ".porchlight/variants/dev.yaml": packages.map(devVariant).join("---\n"),
  };
  for (const pkg of packages) {
    files[`${pkg}/Kptfile`] = `apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: ${pkg}\n`;
    files[`${pkg}/cm.yaml`] = settingsConfigMap("0");
  }
  const w = await startWorld(files, opts);
  await w.forge.createRepo("acme/dev-1", { files: { "README.md": "# dev-1\n" } });
  w.forge.setPermission("acme/dev-1", "alice", "write");
  await w.settle();

  const rest = () => w.users.alice!.rest;
  const dashboard = async () => {
    const { data } = await rest().issues.listForRepo({
      owner: OWNER,
      repo: "blueprints",
      labels: "porchlight/dashboard",
    });
    expect(data).toHaveLength(1);
    return data[0]!;
  };
  let drafts = 0;
  return {
    w,
    openPulls: () => listVariantPulls(w),
    openBranches: async () => (await listVariantPulls(w)).map((p) => p.head.ref).sort(),
    dashboard,
    labels: async () => (await dashboard()).labels.map((l) => (typeof l === "string" ? l : l.name)),
    publish: async (pkg, v) => {
      await publishDraft(w, `drafts/${pkg}/v${++drafts}`, { [`${pkg}/cm.yaml`]: settingsConfigMap(v) });
    },
    mergeAll: async () => {
      for (const p of await listVariantPulls(w))
        await rest().pulls.merge({ owner: OWNER, repo: "dev-1", pull_number: p.number, sha: p.head.sha });
      await w.settle();
    },
    sweep: () => sweep(w),
    writesOfSweep: () => sweepWrites(w),
  };
}

/**
 * The describe block's dev rollout (`startDevRollout`'s arguments), started before its tests and, after
 * them, checked to have left no forge errors and stopped. Each member is the started rollout's.
 */
export function useDevRollout(config: string, packages: string[], opts: WorldOptions = {}): DevRollout {
  return useStarted(
    "the rollout",
    () => startDevRollout(config, packages, opts),
    async (rollout) => {
      expect(rollout?.w.forge.errors).toEqual([]);
      await rollout?.w.stop();
    },
    60_000,
  );
}
