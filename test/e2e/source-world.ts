import { createServer, type RequestListener } from "node:http";
import type { AddressInfo } from "node:net";
import type { MirrorAccess } from "../../src/jobs/mirror/index.js";
import { noCredentials } from "../../src/sources/oci/credentials.js";
import { configMap, kptfile } from "../util/krm.js";
import { useStarted } from "../util/use-started.js";
import { botWrites, editFile, fileOf, startWorld, type World } from "./harness.js";

/**
 * The world of the fan-out e2e files whose upstream is not a git package (an OCI image, a tarball):
 * a management repository `acme/blueprints` holding PackageVariants, the downstream `acme/cluster-01`
 * where alice may write, and the readers those files ask the same questions with.
 */
export interface SourceWorld {
  w: World;
  /** The open fan-out pull requests in cluster-01, by head branch. */
  openPulls(): ReturnType<typeof variantPulls>;
  /** A file of cluster-01 as text, at `ref` (default its default branch). */
  file(path: string, ref?: string): Promise<string>;
  /** Alice commits `edit` of a file of cluster-01 on its default branch (a downstream's own change). */
  editFile(path: string, edit: (text: string) => string): Promise<void>;
  /** The dashboard issue's body ("" when there is none). */
  dashboard(): Promise<string>;
  /** A sweep, settled. */
  sweep(): Promise<void>;
  /** A sweep, settled: what it added to `log` (emptied first: a server's or a fetch's), and the bot's writes. */
  sweepLogging(log: string[]): Promise<{ logged: string[]; writes: number }>;
}

const KPTFILE = kptfile("web");

/** The ConfigMap `settings` holding `data`. */
export const settingsWith = (data: Record<string, string>) => configMap("settings", data);

/** The package `web` (its Kptfile and `files`) as the bytes of each file, for an image or an archive. */
export const webPackage = (files: Record<string, string>) =>
  new Map(Object.entries({ Kptfile: KPTFILE, ...files }).map(([p, t]) => [p, Buffer.from(t)]));

/** A PackageVariant `name` cloning `upstream` (its YAML: `oci: …` or `tarball: …`) into cluster-01's `pkg`. */
export const sourceVariant = (
  name: string,
  upstream: string,
  pkg = "web",
) => `apiVersion: config.porch.kpt.dev/v1alpha1
kind: PackageVariant
metadata:
  name: ${name}
spec:
  upstream:
    ${upstream}
  downstream: {repo: cluster-01, package: ${pkg}}
`;

/** The bot's access to registries and tarballs: no credentials, github.com, and `more`. */
export const mirrorAccess = (more: Partial<MirrorAccess> = {}): MirrorAccess => ({
  credentials: noCredentials,
  serverUrl: "https://github.com",
  ...more,
});

async function variantPulls(w: World) {
  const { data } = await w.users.alice!.rest.pulls.list({ owner: "acme", repo: "cluster-01", state: "open" });
  return data
    .filter((p) => p.head.ref.startsWith("porchlight/variant/"))
    .sort((a, b) => a.head.ref.localeCompare(b.head.ref));
}

/** Starts the world: `variants` as .porchlight/variants/web.yaml, `files` beside it, `mirror` as the app's. */
async function startSourceWorld(
  variants: string,
  mirror: MirrorAccess,
  files: Record<string, string> = {},
): Promise<SourceWorld> {
  const w = await startWorld({ ".porchlight/variants/web.yaml": variants, ...files }, { mirror });
  await w.forge.createRepo("acme/cluster-01", { files: { "README.md": "# cluster-01\n" } });
  w.forge.setPermission("acme/cluster-01", "alice", "write");
  await w.settle();
  const rest = () => w.users.alice!.rest;
  const sweep = async () => {
    await w.app.sweep();
    await w.settle();
  };
  return {
    w,
    openPulls: () => variantPulls(w),
    file: async (path, ref) => (await fileOf(w, "acme/cluster-01", path, ref)).text,
    editFile: async (path, edit) => {
      await editFile(w, "acme/cluster-01", path, edit);
      await w.settle();
    },
    dashboard: async () => {
      const [issue] = (
        await rest().issues.listForRepo({ owner: "acme", repo: "blueprints", labels: "porchlight/dashboard" })
      ).data;
      return issue?.body ?? "";
    },
    sweep,
    sweepLogging: async (log) => {
      const before = botWrites(w);
      log.length = 0;
      await sweep();
      return { logged: [...log], writes: botWrites(w) - before };
    },
  };
}

/** What a describe block's set-up hands startSourceWorld: its variants, the app's access, files beside them. */
export interface SourceWorldSetup {
  variants: string;
  mirror: MirrorAccess;
  files?: Record<string, string>;
}

/**
 * Starts a describe block's source world before its tests from what `setup` prepares (a registry, a
 * tarball server: each handed to `stopAfter`), and stops the world, then those, last started first,
 * after them.
 */
export function useSourceWorld(
  setup: (stopAfter: (stop: () => Promise<void>) => void) => Promise<SourceWorldSetup>,
): SourceWorld {
  const stops: (() => Promise<void>)[] = [];
  return useStarted(
    "the source world",
    async () => {
      const { variants, mirror, files } = await setup((stop) => stops.push(stop));
      return startSourceWorld(variants, mirror, files);
    },
    async (world) => {
      await world?.w.stop();
      for (const stop of stops.reverse()) await stop();
    },
    120_000,
  );
}

/** An HTTP server on a free loopback port answering with `handler`: its base URL, and how to close it. */
export async function serveLoopback(
  handler: RequestListener,
): Promise<{ base: string; close(): Promise<void> }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
