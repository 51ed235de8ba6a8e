import { KubeconfigError, type KubeFlags, kubeContext } from "../kubeconfig-load.js";

/** What `rpkg` acts with: a GitHub token, the GitHub it is for, and Porch's namespace when one is set. */
export interface RpkgAccess {
  token: string;
  apiUrl: string | undefined;
  namespace: string | undefined;
}

/** What the command line gave, besides the environment. */
export interface GivenAccess {
  apiUrl: string | undefined;
  namespace: string | undefined;
  repository: string | undefined;
  kube: KubeFlags;
}

const NO_TOKEN =
  "no token: set GH_TOKEN (or GITHUB_TOKEN) to a token that can read and write the repository, or use a kubeconfig porchlight wrote (--kubeconfig FILE, KUBECONFIG, ~/.kube/config)";

/**
 * Where rpkg's token, GitHub and namespace come from, as porchctl takes them from a kubeconfig and
 * kubectl's flags win over it. GH_TOKEN set and no kubeconfig flag (--kubeconfig, --context, --cluster,
 * --user): as before, from the flags and the environment, no kubeconfig read (a KUBECONFIG left for a
 * cluster changes nothing). Else the kubeconfig's context: the token GH_TOKEN's or its user's, the
 * GitHub --api-url's or its cluster's (the extension porchlight writes, kubeconfig.ts), the namespace
 * --namespace's or its own (not read when --repository names OWNER/REPO outright). A token and the
 * GitHub it goes to come from the same place: the kubeconfig's token is never sent where GITHUB_API_URL
 * (set on every Actions runner) points, nor to a GitHub no one named.
 */
export function rpkgAccess(given: GivenAccess, env: NodeJS.ProcessEnv): RpkgAccess {
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
    throw new KubeconfigError(`${NO_TOKEN}`);
  }
  const at = `context "${context.name}" (${context.file})`;
  if (!context.githubApiUrl && !given.apiUrl)
    throw new KubeconfigError(
      `${at}: its cluster "${context.cluster}" (${context.server ?? "no server"}) is not a porchlight API's: no extension "porchlight" names the GitHub it serves, and rpkg acts on that GitHub. Use a kubeconfig porchlight wrote (\`porchlight api --kubeconfig\`, \`porchlight serve\`), or name the GitHub with --api-url`,
    );
  const token = envToken ?? context.token;
  if (!token)
    throw new KubeconfigError(
      `${at}: its user "${context.user}" has no token (nor tokenFile): rpkg acts on GitHub as that token's holder; give the user a GitHub token (token: or tokenFile:), or set GH_TOKEN`,
    );
  const outright = given.repository?.includes("/") ?? false;
  return {
    token,
    apiUrl: given.apiUrl || context.githubApiUrl,
    namespace: given.namespace || (outright ? undefined : context.namespace),
  };
}
