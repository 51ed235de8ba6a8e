import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { writeResourceList } from "../fn/runtime/wire.js";
import { readTree, writeTree } from "../kpt/tree.js";
import { parseYamlFile } from "../kpt/yaml/yamlfile.js";
import { lastValue, parseArgs } from "./fn-args.js";
import { itemsOfTree, resourceListToTree } from "./fn-list.js";
import { unwrap } from "./fn-run.js";
import { type CliIO, UsageError } from "./io.js";

const SOURCE_HELP = `Usage: porchlight fn source [DIR] [-o stdout|unwrap] [--fn-config FILE]
Writes the resources of DIR (default: .) to stdout as a ResourceList, as kpt fn source does.
`;
const SINK_HELP = `Usage: porchlight fn sink DIR
Writes the ResourceList on stdin to the new directory DIR, one file per path annotation, as kpt fn sink does.
`;

/** `fn source [DIR]`: the resources of a directory as a ResourceList (or plain YAML with -o unwrap). */
export async function sourceCommand(args: string[], io: CliIO): Promise<number> {
  const p = parseArgs(args, { values: { output: "o", "fn-config": undefined }, bools: ["help"] }, "source");
  if (p.bools.has("help")) {
    io.stdout(SOURCE_HELP);
    return 0;
  }
  const output = lastValue(p, "output") ?? "stdout";
  if (output !== "stdout" && output !== "unwrap")
    throw new UsageError(
      `error: invalid input for --output flag "${output}", must be "stdout" or "unwrap"`,
      1,
    );
  const configFile = lastValue(p, "fn-config");
  const functionConfigs = configFile
    ? parseYamlFile(await readFile(resolve(io.cwd, configFile), "utf8"), configFile).docs
    : [];
  if (configFile && functionConfigs.length !== 1)
    throw new UsageError(`error: expected exactly 1 functionConfig, found ${functionConfigs.length}`, 1);
  const items = [];
  for (const dirArg of p.positional.length > 0 ? p.positional : ["."]) {
    const dir = resolve(io.cwd, dirArg);
    if (!existsSync(dir)) throw new UsageError(`error: lstat ${dirArg}: no such file or directory`, 1);
    items.push(...itemsOfTree(await readTree(dir)));
  }
  // kpt writes the resources as read (its unwrap reads no ResourceList back, as fn render's does)
  if (output === "unwrap") io.stdout(unwrap(items));
  else io.stdout(writeResourceList({ items, functionConfig: functionConfigs[0] }));
  return 0;
}

/** `fn sink DIR`: the ResourceList on stdin written as files into DIR, which must not exist yet. */
export async function sinkCommand(args: string[], io: CliIO): Promise<number> {
  const p = parseArgs(args, { values: {}, bools: ["help"] }, "sink");
  if (p.bools.has("help")) {
    io.stdout(SINK_HELP);
    return 0;
  }
  const [dirArg] = p.positional;
  if (dirArg === undefined || p.positional.length !== 1)
    throw new UsageError(`error: accepts 1 arg(s), received ${p.positional.length}`, 1);
  const dir = resolve(io.cwd, dirArg);
  if (existsSync(dir))
    throw new UsageError(
      `error: directory "${dirArg}" already exists, please delete the directory and retry`,
      1,
    );
  await writeTree(dir, new Map(), resourceListToTree(await io.readStdin(), "stdin"));
  return 0;
}
