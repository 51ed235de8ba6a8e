import { type Document, parseAllDocuments, parseDocument } from "yaml";
import type { BuiltinFunction, FunctionResult, ResourceList } from "../../../src/fn/types.js";

/** Parses `---`-separated resources into items, as a ResourceList carries them. */
export function parseItems(text: string): Document[] {
  return parseAllDocuments(text).map((d) => {
    if (d.errors.length > 0) throw d.errors[0];
    return d as unknown as Document;
  });
}

/** Items back to text, `---`-separated, with the layout the tests write (indented sequences). */
function formatItems(items: readonly Document[]): string {
  return items.map((d) => d.toString({ lineWidth: 0 }).replace(/^---\n/, "")).join("---\n");
}

export interface RunOutcome {
  output: string;
  results: FunctionResult[];
}

/** Runs a builtin over inline YAML resources with an inline YAML function config, as `release` (default: newest). */
export async function runBuiltin(
  fn: BuiltinFunction,
  resources: string,
  config?: string,
  release?: string,
): Promise<RunOutcome> {
  const input: ResourceList = {
    items: parseItems(resources),
    results: [],
    ...(config === undefined ? {} : { functionConfig: parseDocument(config) as unknown as Document }),
  };
  const out = await fn.run(input, release === undefined ? {} : { release });
  return { output: formatItems(out.items), results: out.results };
}
