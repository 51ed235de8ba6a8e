import { accountExists, ownersOfRepositoriesNamed } from "../../github/connect.js";
import { REGISTRY_REPO } from "../../porch/repo-address.js";
import type { KubeObject } from "../resources.js";
import { notFound } from "../status.js";
import type { Caller } from "../store.js";
import { asApiErrors, type StoreSettings } from "./context.js";

/** A namespace is a GitHub owner: it exists when the caller's token can see that user or organization. */
export async function getNamespace(
  settings: StoreSettings,
  caller: Caller,
  name: string,
): Promise<KubeObject> {
  const exists = await asApiErrors(() =>
    accountExists({ token: caller.token, apiUrl: settings.apiUrl, conditional: settings.conditional }, name),
  );
  // kubectl prints this as it prints a missing namespace of a cluster
  if (!exists) throw notFound("namespaces", "", name);
  return namespaceObject(name);
}

const namespaceObject = (name: string): KubeObject => ({
  apiVersion: "v1",
  kind: "Namespace",
  metadata: { name },
  spec: {},
  status: { phase: "Active" },
});

/**
 * The namespaces a list across all of them (`kubectl get -A`) covers: the owners whose registrations
 * repository (`OWNER/.porchlight`) the caller can see — their own account, and the organizations and
 * users whose repositories they reach. An owner without registrations has no revisions to list.
 */
export async function visibleNamespaces(settings: StoreSettings, caller: Caller): Promise<KubeObject[]> {
  const owners = await asApiErrors(() =>
    ownersOfRepositoriesNamed(
      { token: caller.token, apiUrl: settings.apiUrl, conditional: settings.conditional },
      REGISTRY_REPO,
    ),
  );
  return owners.map(namespaceObject);
}
