import type { InstallationRepository, RepoFiles } from "../../github/port.js";
import type { FileTree } from "../../kpt/tree.js";
import {
  isRegistrationFile,
  REGISTRATIONS_DIR,
  REGISTRATIONS_REPO,
  type RegistrationFile,
  type RepositoryInfo,
  type VariantProblem,
  withRegistrations,
} from "../../variants/index.js";

/** The namespace's registry of `owner`: its `.porchlight` repository, if the installation reaches it. */
export function registryOf(
  all: readonly InstallationRepository[],
  owner: string,
): InstallationRepository | undefined {
  const name = `${owner}/${REGISTRATIONS_REPO}`.toLowerCase();
  return all.find((r) => r.fullName.toLowerCase() === name);
}

/** The registration files of a registry's default branch, from its files as fan-out read them. */
export function registrationFiles(tree: FileTree): RegistrationFile[] {
  return [...tree]
    .filter(([path]) => isRegistrationFile(path))
    .map(([path, bytes]) => ({ path, text: bytes.toString("utf8") }));
}

/** The same, read from the registry (for a check, which reads no snapshot). */
export async function readRegistrationFiles(
  registry: InstallationRepository,
  port: RepoFiles,
): Promise<RegistrationFile[]> {
  const { tree } = await port.readTree(registry.defaultBranch, REGISTRATIONS_DIR);
  return registrationFiles(
    new Map([...tree].map(([path, bytes]) => [`${REGISTRATIONS_DIR}/${path}`, bytes])),
  );
}

/** The labels and annotations registrations give repositories, by full name, and the registrations' problems. */
export function registeredMetadata(
  repositories: readonly RepositoryInfo[],
  files: readonly RegistrationFile[],
  registry: string,
): { byFullName: Map<string, Pick<RepositoryInfo, "labels" | "annotations">>; problems: VariantProblem[] } {
  const found = withRegistrations(repositories, files, registry);
  const byFullName = new Map<string, Pick<RepositoryInfo, "labels" | "annotations">>();
  for (const r of found.repositories)
    if (r.labels || r.annotations)
      byFullName.set(r.fullName ?? r.name, {
        ...(r.labels ? { labels: r.labels } : {}),
        ...(r.annotations ? { annotations: r.annotations } : {}),
      });
  return { byFullName, problems: found.problems };
}
