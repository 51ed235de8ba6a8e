/**
 * Tagged template for inline YAML and text in tests (Renovate's `codeBlock` style): drops the first line
 * when it is empty, the trailing whitespace-only line, and the indentation common to all non-empty lines,
 * so a block can be indented with the test that holds it.
 */
export function codeBlock(strings: TemplateStringsArray, ...values: unknown[]): string {
  let raw = strings[0] ?? "";
  values.forEach((value, i) => {
    raw += String(value) + (strings[i + 1] ?? "");
  });
  const lines = raw.split("\n");
  if (lines.length > 1 && lines[0]?.trim() === "") lines.shift();
  if (lines.length > 0 && lines[lines.length - 1]?.trim() === "") lines.pop();
  const indents = lines.filter((l) => l.trim() !== "").map((l) => /^ */.exec(l)?.[0].length ?? 0);
  const common = indents.length > 0 ? Math.min(...indents) : 0;
  return `${lines.map((l) => l.slice(common)).join("\n")}\n`;
}
