import type { RegistryAccess, RepositoryObject } from "./registrations.js";
import { gitHostOf, parseGitAddress } from "./repo-address.js";
import type { Registration } from "./repository.js";

/**
 * A namespace's registrations (registrations.ts): each of a repository on this GitHub by that repository
 * and directory, and each of a git URL elsewhere (which porchlight cannot read) with the reason.
 */
export async function registrationsOf(
  access: RegistryAccess,
  namespace: string,
): Promise<{ registrations: Map<string, Registration>; elsewhere: Map<string, string> }> {
  // loaded here, as the verbs are: a command without --namespace never reads a registry
  const { openRegistry } = await import("./registrations.js");
  return registrationsOfObjects(
    await (await openRegistry(access, namespace)).list(),
    access.apiUrl,
    namespace,
  );
}

/** The registrations of a namespace's Repository objects, as registrationsOf reads them. */
export function registrationsOfObjects(
  objects: readonly RepositoryObject[],
  apiUrl: string | undefined,
  namespace: string,
): { registrations: Map<string, Registration>; elsewhere: Map<string, string> } {
  const registrations = new Map<string, Registration>();
  const elsewhere = new Map<string, string>();
  for (const obj of objects) {
    const address = parseGitAddress(obj.spec.git.repo, apiUrl);
    const directory = String(obj.spec.git.directory ?? "").replace(/^\/+|\/+$/g, "");
    if (address?.kind === "github")
      registrations.set(obj.metadata.name, {
        full: `${address.owner}/${address.repo}`,
        directory,
        ...(obj.spec.deployment === true ? { deployment: true } : {}),
      });
    else
      elsewhere.set(
        obj.metadata.name,
        `${obj.spec.git.repo} is not a repository of ${gitHostOf(apiUrl)}, where porchlight keeps package revisions (see \`porchlight repo get ${obj.metadata.name} --namespace=${namespace}\`)`,
      );
  }
  return { registrations, elsewhere };
}
