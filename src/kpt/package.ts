import type { Document } from "yaml";
import { KptError } from "./errors.js";
import { isKptfilePath, KPTFILE_NAME, type Kptfile, parseKptfile } from "./kptfile.js";
import { krmIgnoreMatcher } from "./krmignore.js";
import { type FileTree, fileOf } from "./tree.js";
import { type KptForm, readKptForm } from "./yaml/kpt-form.js";
import type { ParseCache } from "./yaml/parse-cache.js";
import { decodeUtf8 } from "./yaml/utf8.js";
import { isYamlFileName, parseYamlFile } from "./yaml/yamlfile.js";

/** A file of YAML documents within a package. */
export interface ResourceFile {
  /** Path relative to the tree root. */
  path: string;
  /** The file's documents in order, empty ones dropped. */
  docs: Document[];
  /** The text the documents were parsed from: written back as is when nothing changed. */
  text: string;
  /**
   * Set when kpt-form.ts formats the text without reading it and it was left unread (loadPackage's
   * `leaveUnread`): the file as kpt writes it, and what a render without functions reads of each
   * document. `docs` reads the text when first asked.
   */
  kptForm?: KptForm;
}

export interface LoadOptions {
  /** Files parsed before (the same bytes) are not parsed again. */
  cache?: ParseCache;
  /** Files kpt-form.ts formats are left unread (ResourceFile.kptForm): a render's that runs no function. */
  leaveUnread?: boolean;
}

/**
 * A kpt package: a directory with a Kptfile, the resources and other files below it, and its
 * subpackages (directories below it with a Kptfile of their own, which own the files below them).
 */
export interface KptPackage {
  /** Directory relative to the tree root, "" for the root, no trailing slash. */
  path: string;
  kptfilePath: string;
  kptfile: Kptfile;
  kptfileDoc: Document;
  /** The `*.yaml` / `*.yml` files of this package, sorted by path (the Kptfile is not among them). */
  resourceFiles: ResourceFile[];
  /** Paths of every other file this package owns (not YAML, or ignored by `.krmignore`), sorted. */
  otherFiles: string[];
  subpackages: KptPackage[];
}

/**
 * Reads the package rooted at `root` (a directory path in the tree, "" for the tree root) and its
 * subpackages. Every file below `root` belongs to exactly one package. Errors name the file and line.
 */
export function loadPackage(tree: FileTree, root = "", options: LoadOptions = {}): KptPackage {
  const prefix = root === "" ? "" : `${root}/`;
  const rootKptfile = `${prefix}${KPTFILE_NAME}`;
  if (!tree.has(rootKptfile)) {
    throw new KptError(
      { file: rootKptfile },
      `no Kptfile: "${root || "."}" is not a kpt package; create one with "porchlight pkg init" or "kpt pkg init"`,
    );
  }
  const paths = [...tree.keys()].filter((p) => p.startsWith(prefix)).sort();
  const packageDirs = paths.filter(isKptfilePath).map(dirOf);
  const owner = ownerOf(new Set(packageDirs));
  const byDir = new Map<string, string[]>();
  for (const p of paths) {
    const dir = owner(p);
    const list = byDir.get(dir);
    if (list) list.push(p);
    else byDir.set(dir, [p]);
  }
  return build(tree, root, byDir, packageDirs, options);
}

/** The directory of a path, "" at the top. */
function dirOf(path: string): string {
  const slash = path.lastIndexOf("/");
  return slash < 0 ? "" : path.slice(0, slash);
}

/** Maps a file path to the deepest package directory that contains it. */
function ownerOf(dirs: Set<string>): (path: string) => string {
  return (path) => {
    let d = dirOf(path);
    while (!dirs.has(d) && d !== "") d = dirOf(d);
    return d;
  };
}

function build(
  tree: FileTree,
  dir: string,
  byDir: Map<string, string[]>,
  allDirs: string[],
  options: LoadOptions,
): KptPackage {
  const prefix = dir === "" ? "" : `${dir}/`;
  const kptfilePath = `${prefix}${KPTFILE_NAME}`;
  const { doc: kptfileDoc, kptfile } = parseKptfile(text(tree, kptfilePath), kptfilePath);
  const { cache, leaveUnread } = options;
  const ignored = krmIgnoreMatcher(tree.get(`${prefix}.krmignore`)?.toString("utf8"));
  const resourceFiles: ResourceFile[] = [];
  const otherFiles: string[] = [];
  for (const path of byDir.get(dir) ?? []) {
    if (path === kptfilePath) continue;
    if (!isYamlFileName(path) || ignored(path.slice(prefix.length))) {
      otherFiles.push(path);
      continue;
    }
    const body = text(tree, path);
    const kptForm = leaveUnread ? readKptForm(body) : undefined;
    if (kptForm) {
      resourceFiles.push(unreadFile(path, body, kptForm));
      continue;
    }
    const docs = cache ? cache.docs(fileOf(tree, path), body, path) : parseYamlFile(body, path).docs;
    resourceFiles.push({ path, docs, text: body });
  }
  const children = allDirs.filter((d) => d !== dir && d.startsWith(prefix) && isDirectChild(d, dir, allDirs));
  return {
    path: dir,
    kptfilePath,
    kptfile,
    kptfileDoc,
    resourceFiles,
    otherFiles,
    subpackages: children.map((c) => build(tree, c, byDir, allDirs, options)),
  };
}

/** A file kpt-form.ts formats, its documents read when first asked (the reading cannot fail). */
function unreadFile(path: string, body: string, kptForm: KptForm): ResourceFile {
  let docs: Document[] | undefined;
  return {
    path,
    text: body,
    kptForm,
    get docs() {
      docs ??= parseYamlFile(body, path).docs;
      return docs;
    },
  };
}

/** True when no other package directory lies between `parent` and `child`. */
function isDirectChild(child: string, parent: string, allDirs: string[]): boolean {
  return !allDirs.some(
    (d) =>
      d !== child &&
      d !== parent &&
      (parent === "" || d.startsWith(`${parent}/`)) &&
      child.startsWith(`${d}/`),
  );
}

/** A file kpt parses: UTF-8, or a KptError naming the file and the first bad byte. */
function text(tree: FileTree, path: string): string {
  return decodeUtf8(fileOf(tree, path), path);
}

/** The package and all its subpackages, depth first, subpackages before their parent (kpt's render order). */
export function packagesBottomUp(pkg: KptPackage): KptPackage[] {
  const out: KptPackage[] = [];
  const visit = (p: KptPackage): void => {
    for (const s of p.subpackages) visit(s);
    out.push(p);
  };
  visit(pkg);
  return out;
}
