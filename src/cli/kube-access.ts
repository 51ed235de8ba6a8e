import { KubeconfigError, type KubeFlags, kubeContext } from "./kubeconfig-load.js";

/** The commands that act on GitHub with a caller's token, each as porchctl's namesake takes its access. */
export type KubeCommand = "rpkg" | "repo";

/** What a command acts with: a GitHub token, the GitHub it is for, and Porch's namespace when one is set. */
export interface CliAccess {
  token: string;
  apiUrl: string | undefined;
  namespace: string | undefined;
}

/** What the command line gave, besides the environment. */
export interface GivenAccess {
  apiUrl: string | undefined;
  namespace: string | undefined;
  /** rpkg's --repository: OWNER/REPO named outright needs no namespace of the kubeconfig's. */
  repository: string | undefined;
  kube: KubeFlags;
}

/** kubectl's flags that choose in a kubeconfig, which rpkg and repo both take. */
export const KUBE_FLAGS = {
  kubeconfig: "value",
  context: "value",
  cluster: "value",
  user: "value",
} as const;

/** The kubeconfig flags among a command's parsed values. */
export function kubeFlagsOf(values: ReadonlyMap<string, string>): KubeFlags {
  return {
    kubeconfig: values.get("kubeconfig"),
    context: values.get("context"),
    cluster: values.get("cluster"),
    user: values.get("user"),
  };
}

/** What each command's token must be able to do, for the message that asks for one. */
const TOKEN_FOR: Record<KubeCommand, string> = {
  rpkg: "read and write the repository",
  repo: "read the namespace's repositories (and write OWNER/.porchlight to change its registrations)",
};

/**
 * Where `rpkg`'s and `repo`'s token, GitHub and namespace come from, as porchctl takes them from a
 * kubeconfig and kubectl's flags win over it. GH_TOKEN set and no kubeconfig flag (--kubeconfig,
 * --context, --cluster, --user): as before, from the flags and the environment, no kubeconfig read (a
 * KUBECONFIG left for a cluster changes nothing). Else the kubeconfig's context: the token GH_TOKEN's
 * or its user's, the GitHub --api-url's or its cluster's (the extension porchlight writes,
 * kubeconfig.ts), the namespace the one given or its own (not read when --repository names OWNER/REPO
 * outright). A token and the GitHub it goes to come from the same place: the kubeconfig's token is
 * never sent where GITHUB_API_URL (set on every Actions runner) points, nor to a GitHub no one named.
 * Each refusal is a KubeconfigError naming `command`, the one the user ran.
 */
export function kubeAccess(command: KubeCommand, given: GivenAccess, env: NodeJS.ProcessEnv): CliAccess {
  const envToken = env.GH_TOKEN || env.GITHUB_TOKEN || undefined;
  const kubeFlags = Object.values(given.kube).some((v) => Boolean(v));
  if (envToken && !kubeFlags)
    return {
      token: envToken,
      apiUrl: given.apiUrl || env.PORCHLIGHT_API_URL || env.GITHUB_API_URL || undefined,
      namespace: given.namespace,
    };
  const context = kubeContext(given.kube, env);
  if (!context) {
    if (kubeFlags)
      throw new KubeconfigError(
        `--context, --cluster and --user choose in a kubeconfig, and there is none: KUBECONFIG names no file that exists${env.HOME ? ", nor is there ~/.kube/config" : ""}; name one with --kubeconfig FILE`,
      );
    throw new KubeconfigError(
      `no token: set GH_TOKEN (or GITHUB_TOKEN) to a token that can ${TOKEN_FOR[command]}, or use a kubeconfig porchlight wrote (--kubeconfig FILE, KUBECONFIG, ~/.kube/config)`,
    );
  }
  const at = `context "${context.name}" (${context.file})`;
  if (!context.githubApiUrl && !given.apiUrl)
    throw new KubeconfigError(
      `${at}: its cluster "${context.cluster}" (${context.server ?? "no server"}) is not a porchlight API's: no extension "porchlight" names the GitHub it serves, and ${command} acts on that GitHub. Use a kubeconfig porchlight wrote (\`porchlight api --kubeconfig\`, \`porchlight serve\`), or name the GitHub with --api-url`,
    );
  const token = envToken ?? context.token;
  if (!token)
    throw new KubeconfigError(
      `${at}: its user "${context.user}" has no token (nor tokenFile): ${command} acts on GitHub as that token's holder; give the user a GitHub token (token: or tokenFile:), or set GH_TOKEN`,
    );
  const outright = given.repository?.includes("/") ?? false;
  return {
    token,
    apiUrl: given.apiUrl || context.githubApiUrl,
    namespace: given.namespace || (outright ? undefined : context.namespace),
  };
}
