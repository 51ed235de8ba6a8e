/**
 * kpt's words for a repository `git ls-remote` could not list, by what git said on stderr (kpt's gitutil
 * sorts git's failures so), with git's own after them. Words for a person reading `pkg get`'s failure;
 * nothing decides anything by them.
 */
export function unreachableKptText(repo: string, stderr: string): string {
  const details = stderr ? `\nDetails:\n${stderr}` : "";
  if (stderr.includes("could not read Username"))
    return `Repository "${repo}" requires authentication. kpt does not support this for the 'https' protocol. Please use the 'git' protocol instead.\n${details}`;
  if (stderr.includes("Could not resolve host")) return `Unable to access repository "${repo}".\n${details}`;
  if (/fatal: repository '.*' not found/.test(stderr)) return `Repository "${repo}" not found.\n${details}`;
  return `Failed to execute git command "git ls-remote" against repo "${repo}"\n${details}`;
}
