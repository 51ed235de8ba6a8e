import { existsSync } from "node:fs";
import { readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { DEFAULT_API_URL } from "../action/env.js";
import type { AnswerCache } from "../github/conditional.js";
import { ConditionalCache } from "../github/conditional-cache.js";
import { GitCommandError } from "../github/git-process.js";
import { makeTempFolder, reclaimTempFolders } from "../ops/temp-folders.js";
import type { CheckWait } from "../porch/approve.js";
import type { UpstreamAccess } from "../porch/egress.js";
import { type IndexFleet, RevisionIndex } from "../porch/revision-index.js";
import { listenPorchApi, type PorchApiServer } from "../porchapi/listen.js";
import { CallerFolders, namespaceAccess, porchStores, tokenCheck } from "../porchapi/registry/index.js";
import { selfSignedCertificate } from "../porchapi/self-signed.js";
import { apiBoundsFromEnv } from "./api-bounds.js";
import { type CliCommand, type CliIO, UsageError } from "./io.js";
import { kubeconfigYaml } from "./kubeconfig.js";
import { parseCommandArgs } from "./options.js";
import { writePrivateFile } from "./private-file.js";
import { rememberedPort, rememberPort } from "./remembered-ports.js";
import { waitForSignal } from "./signals.js";

const USAGE = `Usage: porchlight api [--host H] [--port N] [--api-url URL] [--kubeconfig FILE] [--namespace NS] [--data DIR]
  Serve Porch's own Kubernetes-style API (porch.kpt.dev packagerevisions and
  packagerevisionresources; config.porch.kpt.dev repositories, packagevariants and
  packagevariantsets) over GitHub, so that kubectl and Porch's clients work unchanged. Each
  request acts on GitHub as the token it carries (Authorization: Bearer <GitHub token>, a
  kubeconfig user's token:). A namespace is a GitHub owner; its repositories are those registered
  with \`porchlight repo register\`. docs/porch-api.md says what is served.

Options:
  --host H          address to listen on (default 127.0.0.1)
  --port N          port (default 9443, or with --data the port it had last time if free; 0: any free port)
  --api-url URL     GitHub's REST base (default PORCHLIGHT_API_URL, GITHUB_API_URL, then https://api.github.com)
  --kubeconfig FILE write a kubeconfig there for GH_TOKEN's (or GITHUB_TOKEN's) holder, then serve
  --namespace NS    that kubeconfig's namespace (a GitHub owner)
  --data DIR        keep the API's certificate and port in DIR, so that the kubeconfig stays the same
                    across restarts (a copy of it, or a context merged from it, keeps working)
  -h, --help        this text

  It is served over HTTPS (kubectl sends a token only over TLS): with the operator's certificate, or
  one of its own, which the kubeconfig it writes trusts.

Environment:
  PORCHLIGHT_API_TLS_CERT, PORCHLIGHT_API_TLS_KEY  PEM files: the certificate to serve HTTPS with
  PORCHLIGHT_API_HTTP=loopback|any  plain HTTP instead (behind a TLS proxy; any: on any address)
  PORCHLIGHT_API_WATCH_POLL_MS    how often a watched namespace is read again, once for all its watchers
                                  (default 5000; this server hears no webhooks)
  PORCHLIGHT_API_WATCH_BOOKMARK_MS  how often a watch that asks for bookmarks gets one (default 60000)
  PORCHLIGHT_API_MAX_WATCHES, PORCHLIGHT_API_MAX_WATCHES_PER_TOKEN, PORCHLIGHT_API_MAX_BODY_BYTES,
  PORCHLIGHT_API_MAX_PENDING_BYTES, PORCHLIGHT_API_BODY_IDLE_MS, PORCHLIGHT_API_BODY_MS,
  PORCHLIGHT_API_STOP_MS, PORCHLIGHT_API_CACHED_CALLERS   the API's bounds (docs/porch-api.md)
`;

const OPTIONS = {
  host: { type: "string" },
  port: { type: "string" },
  "api-url": { type: "string" },
  kubeconfig: { type: "string" },
  namespace: { type: "string" },
  data: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

/** How Porch's API is started, by `api` and by `serve`. */
export interface PorchApiStart {
  host: string;
  port: number;
  apiUrl: string | undefined;
  env: NodeJS.ProcessEnv;
  /** Where the API's own certificate is kept (serve's data folder); none: a new one each start. */
  certDir?: string | undefined;
  /**
   * The app's change notification (`porchlight serve`: the app and the API in one process): `listen` is
   * given a function the app calls with `owner/repo` for each webhook of a repository it receives. With
   * it, the index of package revisions is kept by those events (read again past
   * PORCHLIGHT_API_INDEX_MAX_AGE_MS all the same); without it (`porchlight api`), each read asks GitHub
   * whether anything changed (conditional requests) and watched namespaces are read every
   * PORCHLIGHT_API_WATCH_POLL_MS, once for all their watchers.
   */
  changes?: ((listen: (repository: string, event: string, payload?: unknown) => void) => void) | undefined;
  /** Told each upstream a clone or an upgrade could not reach, what git met as its cause: the log's. */
  report?: UpstreamAccess["report"];
  /**
   * The fleet this API is one replica of (`serve` with REDIS_URL): the index tells the other replicas each
   * change it hears and hears theirs (docs/scaling.md). Heard before the API listens.
   */
  fleet?: IndexFleet | undefined;
  /**
   * GitHub's answers kept for the fleet as well as in this process (`serve` with REDIS_URL: SharedAnswers),
   * so that one replica's reading of a change makes the others' conditional requests answer 304.
   */
  shareAnswers?: ((local: AnswerCache) => AnswerCache) | undefined;
  /** Told what the index could not do with no caller to tell (a watched namespace's refresh, the fleet's Redis). */
  onIndexError?: ((err: unknown) => void) | undefined;
  /** The app beside the API (`porchlight serve`): where its jobs are parked by GitHub's rate limit. */
  botParked?: CheckWait["botParked"];
}

/** How old the index's reading of a namespace may be where webhooks keep it (the sweep's safety net). */
const DEFAULT_INDEX_MAX_AGE_MS = 60_000;

/**
 * The API's TLS: the operator's certificate (PORCHLIGHT_API_TLS_CERT and _KEY), else one of its own
 * (kept in `certDir` when given, so kubeconfigs written once keep working), or none with PORCHLIGHT_API_HTTP
 * (`loopback`, or `any` address): kubectl sends a token only over TLS.
 */
async function tlsOf(start: PorchApiStart): Promise<{ cert: string; key: string } | undefined> {
  const { env } = start;
  const certFile = env.PORCHLIGHT_API_TLS_CERT;
  const keyFile = env.PORCHLIGHT_API_TLS_KEY;
  if (Boolean(certFile) !== Boolean(keyFile))
    throw new UsageError(
      "PORCHLIGHT_API_TLS_CERT and PORCHLIGHT_API_TLS_KEY go together: set both (PEM files) or neither",
    );
  if (certFile && keyFile)
    return { cert: await readFile(certFile, "utf8"), key: await readFile(keyFile, "utf8") };
  const plain = env.PORCHLIGHT_API_HTTP;
  if (plain === "loopback" || plain === "any") return undefined;
  if (plain !== undefined && plain !== "")
    throw new UsageError(`PORCHLIGHT_API_HTTP is loopback or any (plain HTTP, no TLS), not "${plain}"`);
  if (!start.certDir) return selfSignedCertificate([start.host], new Date());
  const [certPath, keyPath] = [join(start.certDir, "porch-api.crt"), join(start.certDir, "porch-api.key")];
  if (existsSync(certPath) && existsSync(keyPath))
    return { cert: await readFile(certPath, "utf8"), key: await readFile(keyPath, "utf8") };
  const made = selfSignedCertificate([start.host], new Date());
  await writePrivateFile(keyPath, made.key);
  await writeFile(certPath, made.cert);
  return made;
}

/** Starts Porch's API with its stores over GitHub; its cache clones go to a folder removed on close. */
export async function startPorchApi(
  start: PorchApiStart,
): Promise<PorchApiServer & { caPem?: string; cacheRoot: string; reclaimed: string[] }> {
  const { env } = start;
  const tls = await tlsOf(start);
  const { cachedCallers, ...bounds } = apiBoundsFromEnv(env);
  // the clones of private repositories a process killed before it could remove them (SIGKILL, a crash)
  const reclaimed = reclaimTempFolders();
  const cacheRoot = makeTempFolder("porchlight-api-");
  // the index's clones, beside the callers' folders (which are each one caller's)
  const indexRoot = makeTempFolder("porchlight-api-index-");
  let server: PorchApiServer;
  let index: RevisionIndex | undefined;
  try {
    // one cache of GitHub's answers for the server's life, kept per caller's token
    const local = new ConditionalCache();
    const conditional = start.shareAnswers?.(local) ?? local;
    const live = start.changes !== undefined;
    const maxAgeMs = live ? indexMaxAge(env) : 0;
    index = new RevisionIndex({
      apiUrl: start.apiUrl,
      cacheDir: indexRoot,
      conditional,
      authorEnv: env,
      maxAgeMs,
      // without webhooks, a watched namespace is read every poll, once for all its watchers
      pollMs: live ? maxAgeMs : bounds.watchPollMs,
      fleet: start.fleet,
      ...(start.onIndexError ? { onError: start.onIndexError } : {}),
    });
    const known = index;
    start.changes?.((repository, event, payload) => known.repositoryChanged(repository, event, payload));
    await index.hearFleet();
    const settings = {
      apiUrl: start.apiUrl,
      folders: new CallerFolders(cacheRoot, cachedCallers),
      env,
      conditional,
      index,
      report: start.report,
      ...(start.botParked ? { botParked: start.botParked } : {}),
    };
    server = await listenPorchApi(
      { host: start.host, port: start.port, tls, allowPlainHttp: env.PORCHLIGHT_API_HTTP === "any" },
      {
        stores: porchStores(settings),
        authenticate: tokenCheck(settings),
        access: namespaceAccess(settings),
        ...bounds,
      },
    );
  } catch (e) {
    index?.stop();
    await rm(indexRoot, { recursive: true, force: true, maxRetries: 5 });
    await rm(cacheRoot, { recursive: true, force: true });
    if (e instanceof Error && /plain HTTP/.test(e.message)) throw new UsageError(`porchlight: ${e.message}`);
    throw e;
  }
  return {
    url: server.url,
    cacheRoot,
    reclaimed,
    ...(tls ? { caPem: tls.cert } : {}),
    close: async () => {
      index?.stop();
      await server.close();
      await rm(indexRoot, { recursive: true, force: true, maxRetries: 5 });
      await rm(cacheRoot, { recursive: true, force: true });
    },
  };
}

/** PORCHLIGHT_API_INDEX_MAX_AGE_MS: how old the index's reading may be where webhooks keep it. */
function indexMaxAge(env: NodeJS.ProcessEnv): number {
  const text = env.PORCHLIGHT_API_INDEX_MAX_AGE_MS;
  if (text === undefined || text === "") return DEFAULT_INDEX_MAX_AGE_MS;
  if (!/^\d+$/.test(text))
    throw new UsageError(
      `PORCHLIGHT_API_INDEX_MAX_AGE_MS must be a whole number of milliseconds (default ${DEFAULT_INDEX_MAX_AGE_MS}), not "${text}"`,
    );
  return Number(text);
}

/**
 * Porch's API for a data folder (`dataDir`, which keeps its certificate too): on `port` when given, else
 * on the port the folder's API had last time when it is free, else on `fallback`; the port it gets is
 * remembered for the next start. So the kubeconfigs written for it (their server and CA) stay the same
 * across restarts, and a copy of one, or a context merged from one, keeps working.
 */
export async function startPorchApiIn(
  start: Omit<PorchApiStart, "port" | "certDir">,
  dataDir: string,
  port: { given: number | undefined; fallback: number; command: string },
): Promise<Awaited<ReturnType<typeof startPorchApi>>> {
  const last = port.given === undefined ? rememberedPort(dataDir, "apiPort", port.command) : undefined;
  const at = (p: number) => startPorchApi({ ...start, port: p, certDir: dataDir });
  let server: Awaited<ReturnType<typeof startPorchApi>>;
  try {
    server = await at(port.given ?? last ?? port.fallback);
  } catch (e) {
    // last time's port, taken meanwhile: another one (the kubeconfigs are then written anew)
    if (last === undefined || (e as NodeJS.ErrnoException).code !== "EADDRINUSE") throw e;
    server = await at(port.fallback === last ? 0 : port.fallback);
  }
  rememberPort(dataDir, "apiPort", server.url);
  return server;
}

/**
 * The API's log of an upstream it could not reach: the caller was answered one neutral message, the
 * operator reads what git (or the HTTP client) met, on stderr.
 */
export function logUnreachable(
  io: Pick<CliIO, "stderr">,
  command = "api",
): NonNullable<PorchApiStart["report"]> {
  return (failure) => {
    const { cause } = failure;
    const met = cause instanceof GitCommandError ? cause.stderr.trim() : String(cause);
    io.stderr(`porchlight ${command}: ${failure.message}: ${met.replace(/\s*\n\s*/g, " / ")}\n`);
  };
}

/** `porchlight api`: Porch's API alone, for one token holder on a laptop or a team's server. */
export const apiCommand: CliCommand = async (args, io) => {
  const { values, positionals } = parseCommandArgs("api", args, OPTIONS, USAGE);
  if (values.help) {
    io.stdout(USAGE);
    return 0;
  }
  if (positionals.length)
    throw new UsageError(`porchlight api: unknown argument "${positionals.join(" ")}"\n\n${USAGE}`);
  const port = values.port;
  if (port !== undefined && !/^\d+$/.test(port))
    throw new UsageError(`porchlight api: --port must be a port number, not "${port}"`);
  const apiUrl = values["api-url"] || io.env.PORCHLIGHT_API_URL || io.env.GITHUB_API_URL || undefined;
  const start = { host: values.host ?? "127.0.0.1", apiUrl, env: io.env, report: logUnreachable(io) };
  const given = port === undefined ? undefined : Number(port);
  const server = values.data
    ? await startPorchApiIn(start, values.data, { given, fallback: 9443, command: "api" })
    : await startPorchApi({ ...start, port: given ?? 9443 });
  if (server.reclaimed.length > 0)
    io.stderr(
      `porchlight api: removed the temporary folders of a porchlight process that is gone: ${server.reclaimed.join(", ")}\n`,
    );
  io.stdout(`porchlight api: Porch's API at ${server.url}\n`);
  if (values.kubeconfig) {
    const token = io.env.GH_TOKEN || io.env.GITHUB_TOKEN;
    if (!token) {
      await server.close();
      throw new UsageError(
        "porchlight api: --kubeconfig writes GH_TOKEN's (or GITHUB_TOKEN's) token: set one",
      );
    }
    // the token's holder's alone (0600), also over a file that was there with a looser mode
    await writePrivateFile(
      values.kubeconfig,
      kubeconfigYaml({
        server: server.url,
        githubApiUrl: apiUrl ?? DEFAULT_API_URL,
        name: "porchlight",
        user: "github",
        token,
        namespace: values.namespace ?? "default",
        caPem: server.caPem,
      }),
    );
    io.stdout(`  export KUBECONFIG=${values.kubeconfig}\n`);
  }
  await waitForSignal();
  await server.close();
  return 0;
};
