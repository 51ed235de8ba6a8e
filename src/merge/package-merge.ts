import { isAlias, isScalar } from "yaml";
import { attribute, type CommandGroup } from "../kpt/attribution.js";
import { type PlainKptfile, readKptfileStruct } from "../kpt/kptfile.js";
import { krmIgnoreMatcher } from "../kpt/krmignore.js";
import { decodeUtf8 } from "../kpt/yaml/utf8.js";
import { formatKptfile, mergeKptfile } from "./kptfile.js";
import { isYamlPath, join, KPTFILE } from "./layout.js";
import { addMergeComment, clearWriterAnnotations } from "./match.js";
import { mergeResources, type TextFiles } from "./resources.js";
import { mergeText } from "./text3.js";
import type { MergeChange, MergeConflict } from "./types.js";
import { formatDocs, parseYamlDocs, type YamlDoc } from "./yamldoc.js";

/** The files one package owns in each of the three versions (package-relative paths). */
export interface PackageFiles {
  original: Map<string, Buffer>;
  updated: Map<string, Buffer>;
  local: Map<string, Buffer>;
}

export interface PackageMergeResult {
  files: Map<string, Buffer>;
  /** Resource files written in kpt's format with merge comments already (package-relative). */
  formatted: string[];
  conflicts: MergeConflict[];
  changes: MergeChange[];
}

/**
 * A package's files split as kpt's update sees them: the resource files (YAML holding at least one
 * document, merged resource by resource) and the rest, merged as whole files — a YAML file with no
 * document (empty, blank, `---` or comments only) among them, so it is kept, added or removed as a
 * file and never emptied or dropped for having no resource.
 */
function split(files: Map<string, Buffer>): { yaml: TextFiles; other: TextFiles } {
  const yaml: TextFiles = new Map();
  const other: TextFiles = new Map();
  for (const [p, b] of files) {
    if (p === KPTFILE) continue;
    if (!isYamlPath(p)) {
      other.set(p, b.toString("utf8"));
      continue;
    }
    // YAML is UTF-8 or refused (kpt's rule): a replacement character must never be merged into a file.
    const t = decodeUtf8(b, p);
    if (holdsDocuments(t, p)) yaml.set(p, t);
    else other.set(p, t);
  }
  return { yaml, other };
}

/** True unless the text parses to no document; a file that does not parse is the merge's to report. */
function holdsDocuments(t: string, file: string): boolean {
  try {
    return parseYamlDocs(t, file).length > 0;
  } catch {
    return true;
  }
}

export function readKptfile(files: Map<string, Buffer>, file: string): PlainKptfile {
  const b = files.get(KPTFILE);
  return b ? readKptfileStruct(b.toString("utf8"), file) : {};
}

/**
 * kpt's resource-merge of one package (`dir` in the tree, for messages): the Kptfile merged, the
 * resources merged 3-way, and the other files merged line by line.
 */
export function mergeOnePackage(dir: string, f: PackageFiles, isRoot: boolean): PackageMergeResult {
  const out = new Map<string, Buffer>();
  const changes: MergeChange[] = [];
  const conflicts: MergeConflict[] = [];
  const kfPath = join(dir, KPTFILE);
  const localKf = readKptfile(f.local, kfPath);
  const replaced: string[] = [];
  const kf = mergeKptfile(
    localKf,
    readKptfile(f.updated, kfPath),
    readKptfile(f.original, kfPath),
    !isRoot,
    kfPath,
    (field) => replaced.push(field),
  );
  out.set(KPTFILE, Buffer.from(formatKptfile(kf)));
  if (replaced.length > 0) changes.push({ file: kfPath, action: "merged", replacedLocal: replaced });

  const [original, updated, local] = [split(f.original), split(f.updated), split(f.local)];
  const resources = mergeResources(original.yaml, updated.yaml, local.yaml);
  for (const [p, t] of resources.files) out.set(p, Buffer.from(t));
  for (const c of resources.changes) changes.push({ ...c, file: join(dir, c.file) });
  for (const p of local.yaml.keys()) {
    if (!resources.files.has(p)) changes.push({ file: join(dir, p), action: "removed" });
  }

  const [o, u, l] = [original.other, updated.other, local.other];
  for (const p of new Set([...o.keys(), ...u.keys(), ...l.keys()])) {
    const merged = mergeOtherFile(o.get(p), u.get(p), l.get(p));
    if (merged.text !== undefined) out.set(p, Buffer.from(merged.text));
    if (merged.action) changes.push({ file: join(dir, p), action: merged.action });
    for (const c of merged.conflicts) conflicts.push({ file: join(dir, p), ...c });
  }
  return { files: out, formatted: [...resources.files.keys()], conflicts, changes };
}

interface OtherFileResult {
  text: string | undefined;
  action?: MergeChange["action"];
  conflicts: { lines: [number, number]; message: string }[];
}

/**
 * A non-KRM file. As kpt: unchanged locally → the upstream version (or gone if upstream removed it);
 * added locally or removed upstream after a local edit → kept; deleted locally but still upstream →
 * back from upstream. Beyond kpt, which keeps the local file whenever it was edited: when both sides
 * changed it, a line-by-line 3-way merge, conflicts reported.
 */
function mergeOtherFile(
  o: string | undefined,
  u: string | undefined,
  l: string | undefined,
): OtherFileResult {
  if (l === undefined) {
    return u === undefined ? { text: undefined, conflicts: [] } : { text: u, action: "added", conflicts: [] };
  }
  if (o === undefined) {
    if (u === undefined || u === l) return { text: l, conflicts: [] };
    const m = mergeText("", u, l);
    return { text: m.text, action: "merged", conflicts: m.conflicts };
  }
  if (l === o) {
    if (u === undefined) return { text: undefined, action: "removed", conflicts: [] };
    return u === l ? { text: l, conflicts: [] } : { text: u, action: "modified", conflicts: [] };
  }
  if (u === undefined || u === o) return { text: l, conflicts: [] };
  const m = mergeText(o, u, l);
  return { text: m.text, action: "merged", conflicts: m.conflicts };
}

/**
 * A package's files as kpt leaves them after adding merge comments (for "changed locally?" checks);
 * with `attributeAs`, also its attribution on Config Connector resources (as `pkg get` writes them).
 *
 * As kpt's add-merge-comment step, all or nothing: it reads every `.yaml`/`.yml` file of the tree
 * (subpackages and hidden directories too; only the root's `.krmignore` leaves files out) and, when one
 * does not read as resources — a syntax error, a document that is a scalar (a template's text line, a
 * JSON string) — kpt lets the step go ("best effort") and every file stays as it was. A file
 * `.krmignore` names is never touched.
 */
export function normalizedFiles(files: Map<string, Buffer>, attributeAs?: CommandGroup): Map<string, string> {
  const out = new Map<string, string>();
  const ignored = krmIgnoreMatcher(files.get(".krmignore")?.toString("utf8"));
  const read = new Map<string, YamlDoc[]>();
  for (const [p, b] of files) {
    if (p === KPTFILE || !isYamlPath(p) || ignored(p)) continue;
    const docs = readResources(b.toString("utf8"), p);
    if (!docs) return new Map([...files].map(([path, bytes]) => [path, bytes.toString("utf8")]));
    read.set(p, docs);
  }
  for (const [p, b] of files) {
    const t = b.toString("utf8");
    const docs = read.get(p);
    // A file with no document (empty, blank, `---` or comments only) is kpt's to leave as it is:
    // its bytes pass through whole.
    if (!docs || docs.length === 0) {
      out.set(p, t);
      continue;
    }
    for (const d of docs) {
      addMergeComment(d);
      clearWriterAnnotations(d);
    }
    if (attributeAs) for (const d of docs) attribute(d.doc, attributeAs);
    out.set(p, formatDocs(docs));
  }
  return out;
}

/** A file's documents as kyaml's package reader takes them, or undefined where it fails on the file. */
function readResources(text: string, path: string): YamlDoc[] | undefined {
  try {
    const docs = parseYamlDocs(text, path);
    // kyaml wants a mapping (a bare list it wraps): a scalar or an alias as a document fails its read.
    return docs.some((d) => isScalar(d.doc.contents) || isAlias(d.doc.contents)) ? undefined : docs;
  } catch {
    return undefined;
  }
}

export function sameFiles(a: Map<string, Buffer>, b: Map<string, Buffer>): boolean {
  if (a.size !== b.size) return false;
  const na = normalizedFiles(a);
  const nb = normalizedFiles(b);
  for (const [p, t] of na) if (nb.get(p) !== t) return false;
  return true;
}
