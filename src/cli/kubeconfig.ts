import { stringify } from "yaml";

/**
 * The name of the cluster extension that says which GitHub a porchlight API serves: `porchlight rpkg`
 * acts on GitHub itself (the API server is only another door to it), so from a kubeconfig it needs the
 * GitHub its token is for. A cluster's `extensions` is kubeconfig's own place for a tool's facts: kubectl
 * keeps them through `config view --flatten` and merges, and ignores what it does not know (minikube's
 * `cluster_info` is one).
 */
export const PORCHLIGHT_EXTENSION = "porchlight";

/** One user's kubeconfig for Porch's API served by porchlight: its server, their GitHub token, a namespace. */
export interface KubeconfigInput {
  server: string;
  /** GitHub's REST base the server acts on (the extension `porchlight`'s `github-api-url`). */
  githubApiUrl: string;
  /** The kubeconfig's names for the cluster, user and context. */
  name: string;
  user: string;
  token: string;
  namespace: string;
  /** The CA of a TLS server with a certificate of its own (PEM). */
  caPem?: string | undefined;
}

export function kubeconfigYaml(input: KubeconfigInput): string {
  const cluster = {
    server: input.server,
    ...(input.caPem ? { "certificate-authority-data": Buffer.from(input.caPem).toString("base64") } : {}),
    extensions: [{ name: PORCHLIGHT_EXTENSION, extension: { "github-api-url": input.githubApiUrl } }],
  };
  const context = `${input.user}@${input.name}`;
  return stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: input.name, cluster }],
    users: [{ name: input.user, user: { token: input.token } }],
    contexts: [
      { name: context, context: { cluster: input.name, user: input.user, namespace: input.namespace } },
    ],
    "current-context": context,
    preferences: {},
  });
}
