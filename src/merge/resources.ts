import { isMap, type YAMLMap } from "yaml";
import { TRANSIENT_ANNOTATIONS } from "../kpt/annotations.js";
import { apiGroup } from "../kpt/resource.js";
import {
  clearEndFeet,
  footComment,
  hasEndFeet,
  setFootComment,
  setTrailingComment,
  trailingComment,
} from "../kpt/yaml/comments.js";
import {
  addMergeComment,
  clearUpdateAnnotations,
  matchKey,
  metadataComment,
  type PkgResource,
} from "./match.js";
import { merge3, resourceContext } from "./merge3.js";
import { canonical, field, scalarText } from "./nodes.js";
import { readResources, type TextFiles } from "./read.js";
import { walkIsIdentity } from "./styles.js";
import { MergeError } from "./types.js";
import { formatDocs, type YamlDoc } from "./yamldoc.js";

/**
 * The resource part of kpt's resource-merge for one package: the `*.yaml`/`*.yml` files of original,
 * updated and local (each a map of package-relative path → text) merged into the new local files.
 *
 * Resources are matched by `matchKey`; then, as kpt decides:
 * added locally → kept; added upstream → added; deleted on both sides → gone; deleted upstream →
 * deleted unless changed locally; deleted locally → stays deleted; otherwise merged field by field.
 * Output files hold their resources in the order kpt writes them (by index within the file); a local
 * file left without resources is deleted.
 */
export type { TextFiles };

interface ResourceChange {
  file: string;
  resource: string;
  action: "added" | "removed" | "merged" | "kept";
  /** Fields where upstream's new value replaced a local edit (see merge3's onReplaced). */
  replacedLocal?: string[];
}

export interface ResourceMergeResult {
  files: TextFiles;
  changes: ResourceChange[];
}

interface Tuple {
  dest?: PkgResource;
  origin?: PkgResource;
  updated?: PkgResource;
}

function buildTuples(local: PkgResource[], origin: PkgResource[], updated: PkgResource[]): Tuple[] {
  const list: Tuple[] = [];
  const byKey = new Map<string, Tuple>();
  const add = (r: PkgResource, slot: keyof Tuple) => {
    const key = matchKey(r);
    let t = byKey.get(key);
    if (!t || t[slot]) {
      t = {};
      list.push(t);
      if (!byKey.has(key)) byKey.set(key, t);
    }
    t[slot] = r;
  };
  for (const r of local) add(r, "dest");
  for (const r of origin) add(r, "origin");
  for (const r of updated) add(r, "updated");
  return list;
}

function display(r: PkgResource): string {
  const m = field(r.y.doc.contents as YAMLMap, "metadata");
  const kind = scalarText(field(r.y.doc.contents as YAMLMap, "kind")) ?? "";
  const ns = scalarText(field(m, "namespace"));
  const name = scalarText(field(m, "name")) ?? "";
  return ns ? `${kind}/${ns}/${name}` : `${kind}/${name}`;
}

function stripped(r: PkgResource): string {
  const copy = r.y.doc.clone();
  const ann = copy.getIn(["metadata", "annotations"], true);
  if (isMap(ann)) {
    for (const a of TRANSIENT_ANNOTATIONS) ann.delete(a);
  }
  return canonical(copy.contents as YAMLMap);
}

export function mergeResources(
  original: TextFiles,
  updated: TextFiles,
  local: TextFiles,
): ResourceMergeResult {
  const read = readResources(original, updated, local);
  refuseDuplicates(read);
  const tuples = buildTuples(read.local, read.original, read.updated);
  const out: PkgResource[] = [...read.settled];
  const changes: ResourceChange[] = [];
  for (const t of tuples) {
    const { dest, origin, updated: upd } = t;
    if (dest && !origin && !upd) out.push(dest);
    else if (!origin && upd && !dest) {
      out.push(upd);
      changes.push({ file: upd.path, resource: display(upd), action: "added" });
    } else if (!upd && !dest) {
      // deleted on both sides
    } else if (origin && !upd) {
      if (dest && stripped(origin) !== stripped(dest)) {
        out.push(dest);
        changes.push({ file: dest.path, resource: display(dest), action: "kept" });
      } else if (dest) changes.push({ file: dest.path, resource: display(dest), action: "removed" });
    } else if (origin && !dest) {
      // deleted locally: stays deleted
    } else if (dest && upd) {
      const same = whole(dest);
      if (
        origin &&
        origin.path === upd.path &&
        upd.index === origin.index &&
        same === whole(upd) &&
        same === whole(origin) &&
        walkIsIdentity(dest.y.doc.contents)
      ) {
        out.push(dest);
        continue;
      }
      for (const r of [dest, origin, upd]) if (r) footOnRoot(r.y);
      const before = canonical(dest.y.doc.contents as YAMLMap);
      const group = apiGroup(scalarText(field(upd.y.doc.contents as YAMLMap, "apiVersion")) ?? "");
      const kind = scalarText(field(upd.y.doc.contents as YAMLMap, "kind")) ?? "";
      const replaced: string[] = [];
      const merged = merge3(dest.y.doc.contents, origin?.y.doc.contents, upd.y.doc.contents, {
        ...resourceContext(group, kind),
        onReplaced: (f) => replaced.push(f),
      });
      if (merged === null) continue;
      // a foot a mapping's end took (the endFoot mark) is written after kyaml's merge walk as any
      // block's foot, not at the mapping's last key (kpt's bytes: merge fixture foot-before-outer-foot)
      if ([dest, origin, upd].some((r) => r && hasEndFeet(r.y.doc.contents))) clearEndFeet(merged);
      dest.y.doc.contents = merged as YAMLMap;
      const seqIndent = origin && upd.y.seqIndent !== origin.y.seqIndent ? upd.y.seqIndent : dest.y.seqIndent;
      const index = origin && upd.index !== origin.index ? upd.index : dest.index;
      const r: PkgResource = { path: dest.path, index, y: { doc: dest.y.doc, seqIndent } };
      out.push(r);
      if (canonical(merged) !== before)
        changes.push({
          file: r.path,
          resource: display(r),
          action: "merged",
          ...(replaced.length > 0 ? { replacedLocal: replaced } : {}),
        });
    }
  }
  return { files: writeFiles(out, local), changes };
}

const SIDE_NAMES = { local: "local", original: "original upstream", updated: "updated upstream" } as const;

/**
 * kpt refuses an update where one side holds two resources it matches as one (same group, kind,
 * `# kpt-merge` namespace and name, same file) — most often a resource copied in its file, its
 * `# kpt-merge` comment with it: kyaml's `found duplicate "local" resources in file …`. Without the
 * refusal neither copy would get the upstream change, silently.
 */
function refuseDuplicates(read: ReturnType<typeof readResources>): void {
  for (const side of ["local", "original", "updated"] as const) {
    const all = [...read[side], ...read.settled].sort((a, b) =>
      a.path === b.path ? a.index - b.index : a.path < b.path ? -1 : 1,
    );
    const seen = new Map<string, PkgResource>();
    for (const r of all) {
      const key = matchKey(r);
      const first = seen.get(key);
      if (!first) {
        seen.set(key, r);
        continue;
      }
      const comment = metadataComment(r.y).trim();
      const what = (x: PkgResource) => (display(x) === "/" ? "a document without kind or name" : display(x));
      throw new MergeError(
        `${r.path}: ${what(first)} and ${what(r)} (documents ${first.index + 1} and ${r.index + 1}) ` +
          `are the same resource to the merge in the ${SIDE_NAMES[side]} package` +
          (comment ? ` (both \`${comment}\`)` : "") +
          ", so it cannot tell which one upstream's changes belong to; if one is a copy you made, remove the " +
          "`# kpt-merge:` comment from its `metadata:` line (and its internal.kpt.dev/upstream-identifier " +
          "annotation) so it is your own resource, then update again",
        `found duplicate "${SIDE_NAMES[side]}" resources in file "${r.path}", please refer to "update" documentation for the fix`,
      );
    }
  }
}

/** A resource as the merge compares it: its content and the comment that ends its document. */
function whole(r: PkgResource): string {
  return `${canonical(r.y.doc.contents as YAMLMap)}|${footComment(r.y.doc) ?? ""}`;
}

/**
 * The `yaml` parser keeps a document's last comment on the document; yaml.v3 keeps it as the foot
 * comment of the root map's last key, where the merge sees (and carries) it: moved onto the root map.
 */
function footOnRoot(y: YamlDoc): void {
  const root = y.doc.contents;
  const foot = footComment(y.doc);
  if (!foot || !isMap(root)) return;
  const own = trailingComment(root);
  setTrailingComment(root, own ? `${own}\n${foot}` : foot);
  setFootComment(y.doc, undefined);
}

/** Groups resources into files, in index order (stable), and formats them as kpt writes them. */
function writeFiles(resources: PkgResource[], local: TextFiles): TextFiles {
  const byFile = new Map<string, PkgResource[]>();
  for (const r of resources) {
    addMergeComment(r.y);
    clearUpdateAnnotations(r.y as YamlDoc);
    const list = byFile.get(r.path) ?? [];
    list.push(r);
    byFile.set(r.path, list);
  }
  const files: TextFiles = new Map();
  for (const [path, list] of byFile) {
    const sorted = list.map((r, i) => ({ r, i })).sort((a, b) => a.r.index - b.r.index || a.i - b.i);
    files.set(path, formatDocs(sorted.map((x) => x.r.y as YamlDoc)));
  }
  void local;
  return files;
}
