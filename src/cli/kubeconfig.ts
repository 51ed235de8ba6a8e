import { stringify } from "yaml";

/** One user's kubeconfig for Porch's API served by porchlight: its server, their GitHub token, a namespace. */
export interface KubeconfigInput {
  server: string;
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
