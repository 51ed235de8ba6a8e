/** Text safe inside a Markdown table cell or inline code: no pipes breaking the row, no stray backticks. */
export function cell(text: string): string {
  return text.replace(/\\/g, "\\\\").replace(/\|/g, "\\|").replace(/\r?\n/g, " ");
}

export function code(text: string): string {
  const clean = text.replace(/\r?\n/g, " ");
  return clean.includes("`") ? `\`\` ${clean} \`\`` : `\`${clean}\``;
}
