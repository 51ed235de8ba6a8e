/**
 * git's rules for a reference name (git-check-ref-format), applied to a branch or tag name without its
 * `refs/heads/` or `refs/tags/` prefix. Returns why the name is not valid, or undefined when it is.
 */
export function refNameProblem(name: string): string | undefined {
  if (name === "") return "is empty";
  if (name === "@") return "cannot be `@` alone";
  if (name.startsWith("-")) return "cannot start with `-`";
  if (name.startsWith("/") || name.endsWith("/")) return "cannot start or end with `/`";
  if (name.includes("//")) return "cannot contain `//`";
  if (name.includes("..")) return "cannot contain `..`";
  if (name.includes("@{")) return "cannot contain `@{`";
  if (name.endsWith(".")) return "cannot end with `.`";
  // biome-ignore lint/suspicious/noControlCharactersInRegex: git forbids control characters in ref names
  const bad = /[\u0000-\u0020\u007f~^:?*[\\]/.exec(name);
  if (bad) return `cannot contain ${describeChar(bad[0])}`;
  for (const component of name.split("/")) {
    if (component.startsWith(".")) return `has a part starting with \`.\` (${component})`;
    if (component.endsWith(".lock")) return `has a part ending with \`.lock\` (${component})`;
  }
  return undefined;
}

function describeChar(c: string): string {
  if (c === " ") return "a space";
  const code = c.charCodeAt(0);
  if (code < 0x20 || code === 0x7f) return `a control character (0x${code.toString(16).padStart(2, "0")})`;
  return `\`${c}\``;
}
