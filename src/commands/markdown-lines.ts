/**
 * The lines of a GitHub comment that are plain text: not in a fenced code block (``` or ~~~), an
 * indented code block, a `>` quote or an HTML comment. Quoting or showing a command never runs it.
 */
export function plainLines(body: string): { line: number; text: string }[] {
  const out: { line: number; text: string }[] = [];
  let fence: { char: string; length: number } | undefined;
  let inHtmlComment = false;
  body.split(/\r?\n/).forEach((text, i) => {
    if (fence) {
      const close = /^ {0,3}(`{3,}|~{3,})\s*$/.exec(text);
      if (close?.[1] && close[1][0] === fence.char && close[1].length >= fence.length) fence = undefined;
      return;
    }
    if (inHtmlComment) {
      if (text.includes("-->")) inHtmlComment = false;
      return;
    }
    const open = /^ {0,3}(`{3,}|~{3,})(.*)$/.exec(text);
    if (open?.[1] && !(open[1][0] === "`" && open[2]?.includes("`"))) {
      fence = { char: open[1][0] as string, length: open[1].length };
      return;
    }
    if (/^ {0,3}<!--/.test(text)) {
      inHtmlComment = !text.includes("-->");
      return;
    }
    if (/^( {4,}|\t)/.test(text) || /^ {0,3}>/.test(text)) return;
    out.push({ line: i + 1, text });
  });
  return out;
}
