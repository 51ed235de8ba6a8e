import type { PackageCheck } from "./package-check.js";

/**
 * A fork's package that holds symbolic links is neither rendered nor validated: porchlight reads a link
 * as its text and never follows it, so the link's author cannot make it read a file outside the package
 * (or outside the repository); the check says which links to replace with the files themselves.
 * `links` are the package's link paths, relative to the package.
 */
export function forkLinksCheck(pkg: string, links: readonly string[]): PackageCheck | undefined {
  if (links.length === 0) return undefined;
  const paths = links.map((l) => `${pkg}/${l}`);
  return {
    pkg,
    ok: false,
    line: `\`${pkg}\`: this pull request comes from a fork and ${paths.map((p) => `\`${p}\``).join(", ")} ${paths.length === 1 ? "is a symbolic link" : "are symbolic links"}; porchlight never follows links and checks a fork's package only when it holds plain files: replace each link with the file it stands for`,
    annotations: paths.map((path) => ({
      path,
      start_line: 1,
      end_line: 1,
      annotation_level: "failure" as const,
      title: "symbolic link",
      message: "A symbolic link in a fork's package is never followed; commit the file itself instead.",
    })),
  };
}
