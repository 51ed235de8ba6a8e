import { type CliCommand, UsageError } from "./io.js";
import { type CliAccess, kubeAccess, kubeFlagsOf } from "./kube-access.js";
import { KubeconfigError } from "./kubeconfig-load.js";
import { FLAGS, HELP } from "./repo-help.js";
import { requestTimeoutMs } from "./request-timeout.js";
import { parseArgs } from "./rpkg/args.js";

/** `--deployment=true|false` is porchctl's other spelling of the switch. */
function normalizeSwitches(args: readonly string[]): string[] {
  const out: string[] = [];
  for (const a of args) {
    const m =
      /^--(deployment|create-branch|no-headers|all-namespaces|repo-workload-identity|keep-auth-secret|all)=(true|false)$/.exec(
        a,
      );
    if (m) {
      if (m[2] === "true") out.push(`--${m[1]}`);
    } else out.push(a);
  }
  return out;
}

export const repoCommand: CliCommand = async (argv, io) => {
  const [verb, ...rest] = argv;
  if (!verb || verb === "--help" || verb === "-h" || verb === "help") {
    io.stdout(HELP);
    return verb ? 0 : 2;
  }
  if (!["register", "reg", "get", "list", "ls", "apply", "unregister", "unreg", "sync"].includes(verb))
    throw new UsageError(
      `porchlight repo: unknown verb "${verb}"; known verbs: register, get, apply, unregister, sync`,
    );
  const args = parseArgs(
    normalizeSwitches(rest).map((a) => (a === "-f" ? "--filename" : a)),
    FLAGS,
    HELP,
    `repo ${verb}`,
  );
  if (args.switches.has("help")) {
    io.stdout(HELP);
    return 0;
  }
  let access: CliAccess;
  try {
    // the token, the GitHub and the namespace as rpkg takes them: flags, the environment, a kubeconfig
    access = kubeAccess(
      "repo",
      {
        apiUrl: args.values.get("api-url"),
        namespace: args.values.get("namespace") || io.env.GITHUB_REPOSITORY_OWNER || undefined,
        repository: undefined,
        kube: kubeFlagsOf(args.values),
      },
      io.env,
    );
  } catch (e) {
    if (!(e instanceof KubeconfigError)) throw e;
    io.stderr(`porchlight repo: ${e.message}\n`);
    return 1;
  }
  const { token, apiUrl, namespace } = access;
  if (!namespace)
    throw new UsageError(
      "porchlight repo: --namespace=OWNER is needed: the GitHub owner whose registrations to use (or a kubeconfig context's namespace)",
    );
  const timeoutMs = requestTimeoutMs(args.values.get("request-timeout"), io.env);
  // the verbs, and what they read and write the registry with, loaded only now
  const { runRepoVerb } = await import("./repo-verbs.js");
  return runRepoVerb(verb, args, namespace, { token, apiUrl, timeoutMs }, io);
};
