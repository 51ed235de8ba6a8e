import { refNameProblem } from "./git-ref.js";

/** A part that looks like a revision (`v3`) would clash with the tags `<package>/v<N>`. */
const REVISION_LIKE = /^v\d+$/;

/**
 * Why a package path (the package's directory relative to the repository root, e.g. `net/dns/coredns`)
 * cannot name branches and tags, or undefined when it can.
 */
export function packagePathProblem(path: string): string | undefined {
  if (path === "") return "the package path is empty";
  if (path === ".") return "the package path cannot be the repository root; a package is a directory";
  if (path.startsWith("/")) return `the package path "${path}" must be relative to the repository root`;
  for (const part of path.split("/")) {
    if (part === "." || part === "..") return `the package path "${path}" cannot contain \`${part}\``;
    if (REVISION_LIKE.test(part)) {
      return `the package path "${path}" has a directory named like a revision (\`${part}\`), which would clash with its revision tags`;
    }
  }
  const problem = refNameProblem(path);
  return problem ? `the package path "${path}" ${problem}` : undefined;
}
