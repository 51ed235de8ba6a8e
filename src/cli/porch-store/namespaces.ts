import { accountExists } from "../../github/connect.js";
import type { KubeObject } from "../../porchapi/resources.js";
import { notFound } from "../../porchapi/status.js";
import type { Caller } from "../../porchapi/store.js";
import { asApiErrors, type StoreSettings } from "./context.js";

/** A namespace is a GitHub owner: it exists when the caller's token can see that user or organization. */
export async function getNamespace(
  settings: StoreSettings,
  caller: Caller,
  name: string,
): Promise<KubeObject> {
  const exists = await asApiErrors(() =>
    accountExists({ token: caller.token, apiUrl: settings.apiUrl }, name),
  );
  // kubectl prints this as it prints a missing namespace of a cluster
  if (!exists) throw notFound("namespaces", "", name);
  return { apiVersion: "v1", kind: "Namespace", metadata: { name }, spec: {}, status: { phase: "Active" } };
}
