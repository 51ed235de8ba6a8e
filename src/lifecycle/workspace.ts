/** Porch's rule for workspace names: a DNS label (lowercase letters, digits and '-', at most 63). */
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

export function workspaceProblem(workspace: string): string | undefined {
  if (workspace === "") return "the workspace name is empty";
  if (workspace.length > 63) return `the workspace name "${workspace}" is longer than 63 characters`;
  if (!DNS_LABEL.test(workspace)) {
    return `the workspace name "${workspace}" must use only lowercase letters, digits and '-', and start and end with a letter or digit`;
  }
  return undefined;
}
