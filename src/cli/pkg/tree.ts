import { lstatSync, readdirSync, readFileSync, statSync } from "node:fs";
import { basename, join, posix, relative, resolve } from "node:path";
import { isScalar, type Node } from "yaml";
import { YamlError } from "../../kpt/errors.js";
import { krmIgnoreMatcher } from "../../kpt/krmignore.js";
import { nodeIn } from "../../kpt/resource.js";
import { formatDocument } from "../../kpt/yaml/format.js";
import { parseYamlFile } from "../../kpt/yaml/yamlfile.js";
import { parseArgs } from "../fn-args.js";
import { resolveSymlinkArg } from "../fn-run.js";
import { goFileError, missingPathError } from "../go-errors.js";
import type { CliIO } from "../io.js";
import { type TreeResource, treeLabel, treeView } from "./tree-view.js";

/**
 * `pkg tree [DIR]`, as kpt v1.0.0-beta.56 reads a package for it (kyaml's package reader): every
 * `Kptfile`, `*.yaml` and `*.yml` below DIR — hidden directories, subpackages and local-config
 * resources included — except what the `.krmignore` at DIR excludes (kpt reads no other). A file that
 * does not parse stops the command with kpt's error; a document that is not a mapping is refused as
 * kpt refuses it, a list is read (and shows nothing). Nothing is printed when no document was read.
 */
const TREE_HELP = `porchlight pkg tree — show a package's resources as a tree, as kpt pkg tree

Usage:
  porchlight pkg tree [DIR]

  DIR defaults to the current directory.
`;

/** What kyaml reads of a scalar into a string: its text, or nothing for a null or a collection. */
function scalarText(node: unknown): string {
  if (!isScalar(node) || node.value === null || node.value === undefined) return "";
  return typeof node.value === "string" ? node.value : (node.source ?? String(node.value));
}

class TreeReadError extends Error {}

function wantsFile(name: string): boolean {
  return name === "Kptfile" || name.endsWith(".yaml") || name.endsWith(".yml");
}

/** The documents of one file, as the tree shows them; TreeReadError with kpt's text when it cannot be read. */
function readResources(abs: string, rel: string, shown: string): { resources: TreeResource[]; read: number } {
  let text: string;
  try {
    text = readFileSync(abs, "utf8");
  } catch (err) {
    const op = (err as NodeJS.ErrnoException).code === "EISDIR" ? "read" : "open";
    throw new TreeReadError(`${abs}: ${goFileError(op, abs, err)}`);
  }
  let docs: ReturnType<typeof parseYamlFile>["docs"];
  try {
    docs = parseYamlFile(text, shown).docs;
  } catch (err) {
    if (!(err instanceof YamlError)) throw err;
    const kpt = err.kptDetail ? `${abs}: MalformedYAMLError: ${err.kptDetail}\n` : "";
    throw new TreeReadError(`${kpt}${err.message}`);
  }
  const resources: TreeResource[] = [];
  for (const doc of docs) {
    const contents = doc.contents as Node | null;
    if (isScalar(contents)) {
      throw new TreeReadError(
        `${abs}: wrong node kind: expected MappingNode but got ScalarNode: node contents:\n${formatDocument(doc)}`,
      );
    }
    resources.push({
      path: rel,
      apiVersion: scalarText(nodeIn(doc, ["apiVersion"])),
      kind: scalarText(nodeIn(doc, ["kind"])),
      name: scalarText(nodeIn(doc, ["metadata", "name"])),
      namespace: scalarText(nodeIn(doc, ["metadata", "namespace"])),
    });
  }
  return { resources, read: docs.length };
}

/**
 * Every document below `root` (a directory, or one file), walked in Go's order so the first error is
 * kpt's; porchlight's own words name a file by the path the user gave (`arg`) and the file below it.
 */
function readBelow(root: string, arg: string): { resources: TreeResource[]; read: number } {
  const out = { resources: [] as TreeResource[], read: 0 };
  const take = (abs: string, rel: string) => {
    const r = readResources(abs, rel, abs === root ? arg : posix.join(arg, rel));
    out.resources.push(...r.resources);
    out.read += r.read;
  };
  if (!lstatSync(root).isDirectory()) {
    if (wantsFile(basename(root))) take(root, basename(root));
    return out;
  }
  let ignored: (rel: string, isDir?: boolean) => boolean = () => false;
  try {
    ignored = krmIgnoreMatcher(readFileSync(join(root, ".krmignore"), "utf8"));
  } catch {
    // no .krmignore: nothing is ignored
  }
  const walk = (dir: string) => {
    const names = readdirSync(dir).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    for (const name of names) {
      const abs = join(dir, name);
      const rel = relative(root, abs).split("\\").join("/");
      if (lstatSync(abs).isDirectory()) {
        if (!ignored(rel, true)) walk(abs);
      } else if (!ignored(rel) && wantsFile(name)) {
        take(abs, rel);
      }
    }
  };
  walk(root);
  return out;
}

/** Whether a Kptfile is there, as kpt asks: any answer but "no such file" counts as yes. */
function hasKptfile(dir: string): boolean {
  try {
    statSync(join(dir, "Kptfile"));
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code !== "ENOENT";
  }
}

export async function treeCommand(args: string[], io: CliIO): Promise<number> {
  const p = parseArgs(args, { values: {}, bools: ["help"] }, "tree");
  if (p.bools.has("help")) {
    io.stdout(TREE_HELP);
    return 0;
  }
  const positional = [...p.positional, ...p.rest];
  if (positional.length > 1) {
    io.stderr(`error: accepts at most 1 arg(s), received ${positional.length}\n`);
    return 1;
  }
  const arg = positional[0] ?? ".";
  const missing = missingPathError(io.cwd, arg);
  if (missing !== undefined) {
    io.stderr(`error: ${missing}\n`);
    return 1;
  }
  const resolved = resolve(io.cwd, resolveSymlinkArg(arg, io));
  let read: ReturnType<typeof readBelow>;
  try {
    read = readBelow(resolved, arg);
  } catch (err) {
    if (!(err instanceof TreeReadError)) throw err;
    io.stderr(`error: ${err.message.endsWith("\n") ? err.message : `${err.message}\n`}`);
    return 1;
  }
  if (read.read === 0) return 0;
  // kpt names the root by the path as given, cleaned (`..` stays `..`; `.` is the working directory's
  // name), and looks for Kptfiles there, not where a symbolic link leads.
  const clean = posix.normalize(arg).replace(/(.)\/+$/, "$1");
  const root = resolve(io.cwd, clean);
  const name = clean === "." ? basename(io.cwd) : clean === "/" ? "/" : posix.basename(clean);
  const rootLabel = treeLabel(name, hasKptfile(root));
  io.stdout(treeView(rootLabel, read.resources, (dir) => hasKptfile(join(root, dir))));
  return 0;
}
