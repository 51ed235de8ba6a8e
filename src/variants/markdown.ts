/** GitHub's limit on a pull request body or issue body; porchlight stays well under it. */
export const GITHUB_BODY_LIMIT = 65_536;
const BODY_BUDGET = 60_000;

/** Text safe inside a Markdown table cell or inline code. */
export function cell(text: string): string {
  return text.replace(/\|/g, "\\|").replace(/\r?\n/g, " ");
}

export function code(text: string): string {
  return `\`${text.replace(/`/g, "'")}\``;
}

/** JSON for an HTML comment marker: `-->` can never appear in it. */
export function markerJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, "\\u003c").replace(/>/g, "\\u003e");
}

/**
 * Renders with lists capped at fewer and fewer items until the text fits the budget: a body that would be
 * too long loses detail ("… and 812 more"), never its markers.
 */
export function fitToBudget(render: (cap: number) => string, budget = BODY_BUDGET): string {
  for (const cap of [Number.POSITIVE_INFINITY, 500, 100, 20, 5, 0]) {
    const text = render(cap);
    if (text.length <= budget) return text;
  }
  return render(0).slice(0, budget);
}

export function capped<T>(
  items: readonly T[],
  cap: number,
  line: (item: T) => string,
  more: (n: number) => string,
): string[] {
  const shown = items.slice(0, cap).map(line);
  return items.length > cap ? [...shown, more(items.length - cap)] : shown;
}
