import { posix } from "node:path";
import { type Document, isMap } from "yaml";
import { ANNOTATION } from "../kpt/annotations.js";
import type { KptPackage, ResourceFile } from "../kpt/package.js";
import { getAnnotation, pathAnnotation } from "../kpt/resource.js";
import type { FileTree } from "../kpt/tree.js";
import { formatDocuments, type SeqIndent } from "../kpt/yaml/format.js";
import { setKptAnnotation, takePlace } from "./items.js";

/**
 * Every file the packages' resources were read from (Kptfiles included), tree-relative: the files a
 * render rewrites from its items, or deletes when no item goes back to them. A file that held no
 * document (empty, blank, `---` or comments only) gave no item and is none of the render's business:
 * kpt's writer never touches it, so it keeps every byte.
 */
export function resourceFilePaths(pkg: KptPackage): string[] {
  const out: string[] = [];
  const visit = (p: KptPackage): void => {
    out.push(p.kptfilePath);
    for (const f of p.resourceFiles) if (holdsDocuments(f)) out.push(f.path);
    for (const s of p.subpackages) visit(s);
  };
  visit(pkg);
  return out;
}

/** True when the file gave the render at least one item (a lazily read file is not read to tell). */
export function holdsDocuments(file: Pick<ResourceFile, "docs" | "kptForm">): boolean {
  return file.kptForm ? file.kptForm.docs.length > 0 : file.docs.length > 0;
}

/** The tree-relative file an item goes to: its package's directory joined with its path annotation. */
function treePathOf(doc: Document, packageDirs: ReadonlyMap<string, string>, fallbackDir: string): string {
  return fileOf(
    pathAnnotation(doc) ?? "",
    getAnnotation(doc, ANNOTATION.packagePath),
    packageDirs,
    fallbackDir,
  );
}

function fileOf(
  path: string,
  pkgAbs: string | undefined,
  packageDirs: ReadonlyMap<string, string>,
  fallbackDir: string,
): string {
  const dir = (pkgAbs !== undefined ? packageDirs.get(pkgAbs) : undefined) ?? fallbackDir;
  // As kpt: the path is cleaned and must not climb out of its own package; an absolute path is
  // joined to the package directory like any other (Go's filepath.Join).
  const clean = posix.normalize(path);
  if (clean.startsWith("../") || clean === "..") {
    throw new Error(`function must not modify resources outside of package: resource has path ${path}`);
  }
  const rel = clean.replace(/^\/+/, "");
  return posix.normalize(dir === "" ? rel : `${dir}/${rel}`);
}

/**
 * The package files after a render, as kpt writes them: every resource file rewritten from its items
 * (ordered by index, transient annotations stripped, reformatted); a file left without resources
 * deleted; other files untouched. Items are changed in place (annotations stripped). The `kept` files
 * (read into no item: items.ts's keptAsRead) are written as kpt-form.ts formatted them.
 */
export function itemsToTree(
  before: FileTree,
  sourceFiles: readonly string[],
  items: readonly Document[],
  packageDirs: ReadonlyMap<string, string>,
  rootDir: string,
  written: string[] = [],
  kept: readonly ResourceFile[] = [],
): FileTree {
  const after: FileTree = new Map(before);
  for (const p of sourceFiles) after.delete(p);
  for (const f of kept) {
    const text = f.kptForm?.text ?? f.text;
    const old = before.get(f.path);
    after.set(f.path, old && text === f.text ? old : Buffer.from(text, "utf8"));
    written.push(f.path);
  }
  const byFile = new Map<string, { doc: Document; index: number; order: number; style: SeqIndent }[]>();
  items.forEach((doc, order) => {
    const place = takePlace(doc);
    const file = fileOf(place.path ?? "", place.packagePath, packageDirs, rootDir);
    let list = byFile.get(file);
    if (!list) {
      list = [];
      byFile.set(file, list);
    }
    list.push({ doc, index: place.index ?? Number.MAX_SAFE_INTEGER, order, style: place.seqIndent });
  });
  for (const [file, list] of byFile) {
    list.sort((a, b) => a.index - b.index || a.order - b.order);
    const text = formatDocuments(
      list.map((e) => e.doc),
      list.map((e) => e.style),
    );
    const old = before.get(file);
    after.set(file, old && old.toString("utf8") === text ? old : Buffer.from(text, "utf8"));
    written.push(file);
  }
  return after;
}

/**
 * Items as `--output stdout` shows them: paths relative to the rendered root, without the package
 * path and ids kpt uses internally.
 */
export function itemsForOutput(
  items: readonly Document[],
  packageDirs: ReadonlyMap<string, string>,
  rootDir: string,
): Document[] {
  const prefix = rootDir === "" ? "" : `${rootDir}/`;
  for (const doc of items) {
    const file = treePathOf(doc, packageDirs, rootDir);
    const rel = file.startsWith(prefix) ? file.slice(prefix.length) : file;
    // An annotation that already says so keeps its node: a function may have restyled it (set-namespace
    // v0.1 writes every value as Go does, `path: Kptfile` unquoted), and kpt leaves it so.
    for (const key of [ANNOTATION.path, ANNOTATION.internalPath]) {
      const value = getAnnotation(doc, key);
      if (value !== undefined && value !== rel) setKptAnnotation(doc, key, rel);
    }
    deleteAnnotation(doc, ANNOTATION.packagePath);
  }
  return [...items];
}

function deleteAnnotation(doc: Document, key: string): void {
  const annotations = doc.getIn(["metadata", "annotations"], true);
  if (isMap(annotations)) annotations.delete(key);
}
