import { isYamlFileName } from "../../kpt/yaml/yamlfile.js";
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
    line: `\`${pkg}\`: this pull request comes from a fork and ${listed(paths)} ${linkWords(paths)}; porchlight never follows links and checks a fork's package only when it holds plain files: replace each link with the file it stands for`,
    annotations: linkAnnotations(
      paths,
      "A symbolic link in a fork's package is never followed; commit the file itself instead.",
    ),
  };
}

/**
 * A same-repository package whose YAML files (the files kpt reads: `*.yaml`, `*.yml`, `Kptfile`)
 * include symbolic links: porchlight reads a package from git, where a link is only the text of its
 * target, and never follows it, so the check names each link as one (rather than failing to parse
 * `../base/cm.yaml` as a resource). Links to other files are left alone: nothing reads them.
 */
export function packageLinksCheck(pkg: string, links: readonly string[]): PackageCheck | undefined {
  const problem = packageLinksProblem(pkg, links);
  if (!problem) return undefined;
  return {
    pkg,
    ok: false,
    line: `\`${pkg}\`: ${problem.text}`,
    annotations: linkAnnotations(
      problem.paths,
      "A symbolic link to a YAML file is not followed; commit the file itself (a copy) instead.",
    ),
  };
}

/**
 * The YAML files of a same-repository package that are symbolic links (`links` relative to the
 * package), as repository paths and the sentence naming them; undefined when there are none. The draft
 * render says it too, before a link's target path is parsed as a resource.
 */
export function packageLinksProblem(
  pkg: string,
  links: readonly string[],
): { paths: string[]; text: string } | undefined {
  const read = links.filter(isYamlFileName);
  if (read.length === 0) return undefined;
  const paths = read.map((l) => `${pkg}/${l}`);
  return {
    paths,
    text: `${listed(paths)} ${linkWords(paths)}; porchlight reads a package's files from git, where a link holds only the path it points to, and never follows links (kpt skips them): replace each link with the file it stands for`,
  };
}

function listed(paths: readonly string[]): string {
  return paths.map((p) => `\`${p}\``).join(", ");
}

function linkWords(paths: readonly string[]): string {
  return paths.length === 1 ? "is a symbolic link" : "are symbolic links";
}

function linkAnnotations(paths: readonly string[], message: string): PackageCheck["annotations"] {
  return paths.map((path) => ({
    path,
    start_line: 1,
    end_line: 1,
    annotation_level: "failure" as const,
    title: "symbolic link",
    message,
  }));
}
