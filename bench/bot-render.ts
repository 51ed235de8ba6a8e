import { KptRenderer } from "../src/jobs/kpt-renderer/index.js";
import type { FileTree } from "../src/kpt/tree.js";
import { builtinPipeline } from "./render.js";
import { generatePackage } from "./render-package.js";

/** CPU milliseconds (user + system) of `run`. */
async function cpu<T>(run: () => Promise<T>): Promise<[number, T]> {
  const start = process.cpuUsage();
  const out = await run();
  const used = process.cpuUsage(start);
  return [(used.user + used.system) / 1000, out];
}

/**
 * The bot's render of a 10,000-resource package with the five builtins, as its pushes come: the first
 * render (nothing cached), a push that changes one file, and a push that leaves the package as it
 * rendered. CPU time in this process, and the renderer's own counters of the work done.
 */
export async function benchBotRender(): Promise<Record<string, number | string>[]> {
  const renderer = new KptRenderer();
  const options = { runtimes: ["builtin" as const] };
  const rows: Record<string, number | string>[] = [];
  const step = async (push: string, tree: FileTree): Promise<FileTree> => {
    const before = renderer.stats;
    const [ms, result] = await cpu(() => renderer.render(tree, options));
    if (!result.ok) throw new Error(result.error);
    const after = renderer.stats;
    rows.push({
      push,
      cpuMs: Math.round(ms),
      filesParsed: after.filesParsed - before.filesParsed,
      filesRead: after.filesRead - before.filesRead,
      filesReused: after.filesReused - before.filesReused,
      filesRendered: after.filesRendered - before.filesRendered,
      functionsRun: after.functionsRun - before.functionsRun,
      placesFound: after.placesFound - before.placesFound,
    });
    return result.tree;
  };
  const input = generatePackage(10000, builtinPipeline());
  const rendered = await step("first render of the package (nothing cached)", input);
  await step("its rendered files, pushed by the bot", rendered);
  // Edits as a person makes them: a value changed in one file of the bot's commit.
  const edit = (tree: FileTree, n: number): FileTree => {
    const out = new Map(tree);
    const text = tree.get("app-0.yaml")!.toString();
    out.set("app-0.yaml", Buffer.from(text.replace(/value: "?[a-z0-9-]+"?/, `value: "edit-${n}"`)));
    return out;
  };
  const edited = await step("a push that changes one file", edit(rendered, 1));
  await step("another such push", edit(edited, 2));
  await step("a push outside the package (same files)", edit(edited, 2));
  // kyaml moves a comment that ends a file other than the list's last: the file and each package's last
  // files are rendered (the list's last item decides what is written of such a comment).
  const commented = new Map(edited);
  const other = [...edited.keys()].filter((p) => p.endsWith(".yaml") && p !== "app-0.yaml").sort()[0]!;
  commented.set(other, Buffer.from(`${edited.get(other)!.toString()}# edited\n`));
  const withComment = await step("a push ending a file in a comment", commented);
  await step("its rendered files, pushed by the bot", withComment);
  await step("a push that changes one file after that", edit(withComment, 3));
  return rows;
}
