import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PorchError } from "../porch/errors.js";
import { registrationsOf } from "../porch/namespace.js";
import { cacheRoot, DiskCache } from "./disk-cache.js";
import { type CliCommand, type CliIO, UsageError } from "./io.js";
import { KUBE_FLAGS, kubeAccess, kubeFlagsOf } from "./kube-access.js";
import { KubeconfigError } from "./kubeconfig-load.js";
import { createProgress, type Progress, type Scheduler, silentProgress } from "./progress.js";
import { requestTimeoutMs } from "./request-timeout.js";
import { parseArgs } from "./rpkg/args.js";
import type { RpkgEnv } from "./rpkg/env.js";
import { asUsageError, describeFailure, FlagRefusal, failureAdvice } from "./rpkg/errors.js";
import { VERBS } from "./rpkg/verbs.js";

/**
 * `porchlight rpkg`: Porch's `porchctl rpkg` over a GitHub repository. Each verb lives in
 * `./rpkg/<verb>.ts`; this file parses the common flags, finds the token and turns failures into one
 * clear message.
 */
const COMMON = {
  repository: "value",
  "api-url": "value",
  namespace: "value",
  ...KUBE_FLAGS,
  verbose: "switch",
  "request-timeout": "value",
} as const;

function help(): string {
  const width = Math.max(...VERBS.map((v) => v.name.length));
  return `porchlight rpkg — package revisions on GitHub, as porchctl rpkg does them in Porch

Usage: porchlight rpkg <verb> [args] [--kubeconfig=FILE] [--context=NAME] [-n NAMESPACE]
       porchlight rpkg <verb> [args] --repository=OWNER/REPO [--api-url=URL] [-v]

Verbs:
${VERBS.map((v) => `  ${v.name.padEnd(width + 2)}${v.summary}`).join("\n")}

porchctl's other names for them work too: ${VERBS.flatMap((v) => (v.aliases ?? []).map((a) => `${a} (${v.name})`)).join(", ")}.

A revision is named as \`rpkg get\` prints it (<repo>.<package>.<workspace>), or by its git ref:
drafts/<package>/<workspace> (a draft or proposal) or <package>/v<N> (a published revision).

As porchctl, rpkg reads a kubeconfig (--kubeconfig FILE, else the files KUBECONFIG lists, else
~/.kube/config; --context, else its current-context; --cluster, --user) that porchlight wrote
(\`porchlight api --kubeconfig\`, \`porchlight serve\`): its user's token (a GitHub token), the GitHub
its cluster's extension "porchlight" names, its namespace. GH_TOKEN, --api-url and --namespace win over
it; with GH_TOKEN set and none of those four flags, no kubeconfig is read (docs/rpkg.md).
--namespace (-n) is a GitHub owner; with --repository=REPO it is Porch's spelling of OWNER/REPO. Progress
goes to stderr on a terminal, or with -v (--verbose); otherwise stderr carries only failures, as porchctl's.
The token comes from GH_TOKEN or GITHUB_TOKEN, else the kubeconfig; --repository defaults to
GITHUB_REPOSITORY. --api-url is GitHub's REST base (GitHub Enterprise: https://HOST/api/v3, or the
embedded forge's URL); default PORCHLIGHT_API_URL, GITHUB_API_URL, then https://api.github.com (with a
kubeconfig: its GitHub).
--request-timeout (kubectl's: 500ms, 10s, 2m; 0 waits as long as it takes; default
PORCHLIGHT_REQUEST_TIMEOUT, else 30s) bounds how long \`get\` waits for one repository of a namespace:
one that does not answer in time is reported and the others are listed.
Run 'porchlight rpkg <verb> --help' for a verb's flags.
`;
}

export interface RpkgOptions {
  /** Overrides the progress display (tests inject a scheduler so spinners never wait on a clock). */
  schedule?: Scheduler;
}

export function makeRpkgCommand(opts: RpkgOptions = {}): CliCommand {
  return async (args, io) => {
    const [verbName, ...rest] = args;
    if (!verbName || verbName === "--help" || verbName === "-h" || verbName === "help") {
      io.stdout(help());
      return verbName ? 0 : 2;
    }
    const entry = VERBS.find((v) => v.name === verbName || v.aliases?.includes(verbName));
    if (!entry) {
      throw new UsageError(
        `porchlight rpkg: unknown verb "${verbName}"; known verbs: ${VERBS.map((v) => v.name).join(", ")}`,
      );
    }
    const verb = await entry.load();
    const parsed = parseArgs(rest, { ...COMMON, ...verb.flags }, verb.usage, `rpkg ${verb.name}`);
    if (parsed.switches.has("help")) {
      io.stdout(verb.usage);
      return 0;
    }
    let access: ReturnType<typeof kubeAccess>;
    try {
      access = kubeAccess(
        "rpkg",
        {
          apiUrl: parsed.values.get("api-url"),
          namespace: parsed.values.get("namespace"),
          repository: parsed.values.get("repository"),
          kube: kubeFlagsOf(parsed.values),
        },
        io.env,
      );
    } catch (e) {
      if (!(e instanceof KubeconfigError)) throw e;
      io.stderr(`porchlight rpkg: ${e.message}\n`);
      return 1;
    }
    const { token, apiUrl, namespace } = access;
    // node:fs's calls, not fs/promises's: loading fs/promises (and the readline modules it brings) cost
    // every command 2–3 ms of CPU, for one directory made and removed
    const cacheDir = mkdtempSync(join(tmpdir(), "porchlight-rpkg-"));
    const progress = progressOf(io, opts, parsed.switches.has("verbose"));
    // across commands: commits' facts and GitHub's answers, each asked again only as GitHub allows
    const root = cacheRoot(io.env);
    const disk = root === undefined ? undefined : new DiskCache(root);
    const env: RpkgEnv = {
      io,
      progress,
      token,
      apiUrl,
      cacheDir,
      conditional: disk,
      disk,
      authorEnv: io.env,
      verbose: parsed.switches.has("verbose"),
      timeoutMs: requestTimeoutMs(parsed.values.get("request-timeout"), io.env),
      timeoutSet: parsed.values.has("request-timeout") || Boolean(io.env.PORCHLIGHT_REQUEST_TIMEOUT),
    };
    if (namespace) env.namespace = namespace;
    let repository: string | undefined;
    try {
      if (namespace) {
        const { registrations, elsewhere } = await registrationsOf(
          { token, apiUrl, cacheDir, conditional: disk, disk },
          namespace,
        );
        env.registrations = registrations;
        env.elsewhere = elsewhere;
      }
      const named = parsed.values.get("repository") ?? registeredByName(parsed.positional, env.elsewhere);
      const unreadable = named === undefined ? undefined : env.elsewhere?.get(named);
      if (named !== undefined && unreadable !== undefined)
        throw new PorchError("bad-request", `repository "${named}" is not ready: ${unreadable}`);
      repository =
        repositoryOf(parsed.values.get("repository"), namespace, io, env.registrations) ??
        registeredByName(parsed.positional, env.registrations);
      if (repository) parsed.values.set("repository", repository);
      else if (namespace) unresolved(namespace, verb.name, parsed.positional, env);
      return await verb.run(parsed, env);
    } catch (e) {
      const usage = asUsageError(e);
      if (usage instanceof UsageError) throw usage;
      if (e instanceof FlagRefusal) {
        io.stderr(`error: ${e.message}\n`);
        return 1;
      }
      // porchctl's (cobra's) failure line, its trailing space included; "did you mean", the hint under -v
      io.stderr(`Error: ${describeFailure(e, repository ?? "the repository")} \n`);
      io.stderr(failureAdvice(e, env.verbose, io.isTTY));
      return 1;
    } finally {
      rmSync(cacheDir, { recursive: true, force: true });
    }
  };
}

/**
 * The repository a verb works on, `OWNER/REPO`: `--repository` as given, or Porch's pair — a namespace
 * is a GitHub owner, a Repository named in it a repository of that owner — so `--namespace=acme
 * --repository=blueprints` is `acme/blueprints`; else GITHUB_REPOSITORY.
 */
function repositoryOf(
  repository: string | undefined,
  namespace: string | undefined,
  io: CliIO,
  registrations: RpkgEnv["registrations"],
) {
  // a registered name stays a name: its registration tells the repository and the directory
  if (repository && !repository.includes("/") && namespace)
    return registrations?.has(repository) ? repository : `${namespace}/${repository}`;
  return repository ?? io.env.GITHUB_REPOSITORY;
}

/**
 * Porch's names carry their repository: `git.app.v1` is in the registration `git` (the longest
 * registered name that, with a dot, starts the first name given).
 */
function registeredByName(names: readonly string[], registrations: ReadonlyMap<string, unknown> | undefined) {
  const first = names[0];
  if (!first || !registrations) return undefined;
  const match = [...registrations.keys()]
    .filter((n) => first.startsWith(`${n}.`))
    .sort((a, b) => b.length - a.length)[0];
  return match === undefined ? undefined : match;
}

/**
 * Porch's namespace gave no repository: none registered that the caller can read, or a name that no
 * registration starts (a namespace-wide `get` lists what there is, so it goes on).
 */
function unresolved(
  namespace: string,
  verb: string,
  names: readonly string[],
  env: Pick<RpkgEnv, "registrations" | "elsewhere">,
): void {
  const registered = [...(env.registrations?.keys() ?? [])];
  const elsewhere = [...(env.elsewhere ?? [])];
  if (registered.length === 0 && elsewhere.length > 0)
    throw new PorchError(
      "bad-request",
      `namespace ${namespace} registers no repository porchlight can read: ${elsewhere.map(([name, why]) => `"${name}": ${why}`).join("; ")}`,
      `register a repository of this GitHub with \`porchlight repo register --namespace=${namespace} OWNER/REPO\`, or name one with --repository=OWNER/REPO`,
    );
  if (registered.length === 0)
    throw new PorchError(
      "bad-request",
      `namespace ${namespace} has no Repository registrations that this token can read (they are kept in ${namespace}/.porchlight)`,
      `register one with \`porchlight repo register --namespace=${namespace} URL\`, get read access to ${namespace}/.porchlight, or name the repository with --repository=OWNER/REPO`,
    );
  // init and clone name a new package, not a revision: their usage says --repository is needed
  if (!["get", "init", "clone"].includes(verb) && names[0])
    throw new PorchError(
      "not-found",
      `${names[0]} is in none of the repositories registered in namespace ${namespace} (${registered.join(", ")}): names look like REPOSITORY.PACKAGE.WORKSPACE`,
      `list them with \`porchlight rpkg get --namespace=${namespace}\``,
    );
}

/**
 * Progress as porchctl shows it: none on a pipe or in a log (stderr carries only failures, as
 * porchctl's), a spinner on a terminal, and plain lines with `-v`.
 */
function progressOf(io: CliIO, opts: RpkgOptions, verbose: boolean): Progress {
  if (!io.isTTY && !verbose) return silentProgress;
  return createProgress({
    write: io.stderr,
    tty: io.isTTY,
    ...(opts.schedule ? { schedule: opts.schedule } : {}),
  });
}

export const rpkgCommand: CliCommand = makeRpkgCommand();
