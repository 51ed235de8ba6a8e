import { posix } from "node:path";
import { goQuoteString } from "../../api/go-quote.js";

/**
 * The text of `kpt pkg tree` (kpt v1.0.0-beta.56's TreeWriter over the treeprint library), from the
 * resources read below the root. Pure: the caller reads the files and says which directories hold a
 * Kptfile.
 */

/** A resource as the tree shows it: its file (relative to the root, `/`-separated) and identity. */
export interface TreeResource {
  path: string;
  apiVersion: string;
  kind: string;
  name: string;
  namespace: string;
}

interface Node {
  parent?: Node;
  meta?: string;
  value: string;
  children: Node[];
}

function add(parent: Node, value: string, meta?: string): Node {
  const node: Node = { parent, value, children: [], ...(meta !== undefined ? { meta } : {}) };
  parent.children.push(node);
  return node;
}

/** Go compares strings byte by byte (UTF-8), not by UTF-16 unit as JavaScript does. */
function goCompare(a: string, b: string): number {
  return a === b ? 0 : Buffer.compare(Buffer.from(a), Buffer.from(b));
}

/** Resources within a directory: by file name, namespace, name, kind, apiVersion. */
function compareResources(a: TreeResource, b: TreeResource): number {
  return (
    goCompare(posix.basename(a.path), posix.basename(b.path)) ||
    goCompare(a.namespace, b.namespace) ||
    goCompare(a.name, b.name) ||
    goCompare(a.kind, b.kind) ||
    goCompare(a.apiVersion, b.apiVersion)
  );
}

/** kpt's label for a package directory, `Package "name"`, else the directory's name. */
export function treeLabel(name: string, isPackage: boolean): string {
  return isPackage ? `Package ${goQuoteString(name)}` : name;
}

/**
 * The tree: a branch per directory holding resources, under the nearest such directory whose path
 * begins with its own — a string prefix, as kpt matches it, so `sub2` hangs under `sub`, and a
 * directory without resources is skipped (`a/b` hangs under the root when `a` holds none). kpt picks
 * among several such directories at random (Go's map order); porchlight takes the nearest, the one
 * kpt means to. Within a directory, resources come first, in kpt's order; then the directories below.
 */
export function treeView(
  rootLabel: string,
  resources: readonly TreeResource[],
  isPackageDir: (dir: string) => boolean,
): string {
  const byDir = new Map<string, TreeResource[]>();
  for (const r of resources) {
    if (r.kind === "") continue;
    const dir = posix.dirname(r.path);
    byDir.set(dir, [...(byDir.get(dir) ?? []), r]);
  }
  const root: Node = { value: rootLabel, children: [] };
  const branches = new Map<string, Node>();
  for (const dir of [...byDir.keys()].sort(goCompare)) {
    let parent = root;
    let nearest = "";
    for (const [other, node] of branches) {
      if (dir.startsWith(other) && other.length >= nearest.length) {
        parent = node;
        nearest = other;
      }
    }
    const branch = dir === "." ? parent : add(parent, treeLabel(posix.basename(dir), isPackageDir(dir)));
    branches.set(dir, branch);
    for (const r of (byDir.get(dir) ?? []).sort(compareResources)) {
      const id = r.namespace ? `${r.namespace}/${r.name}` : r.name;
      add(branch, `${r.kind} ${id}`, posix.basename(r.path));
    }
  }
  return render(root);
}

const LINK = "│   ";
const SPACE = "    ";

function isLast(node: Node): boolean {
  const siblings = node.parent?.children ?? [];
  return siblings[siblings.length - 1] === node;
}

/** A value of several lines: the lines after the first indented to the node's depth, as treeprint does. */
function valueText(node: Node): string {
  const lines = node.value.split("\n");
  if (lines.length < 2) return node.value;
  let pad = "";
  for (let n: Node | undefined = node; n?.parent; n = n.parent) pad = (isLast(n) ? SPACE : LINK) + pad;
  return lines.map((l, i) => (i === 0 ? l : pad + l)).join("\n");
}

function render(root: Node): string {
  const out: string[] = [`${root.value}\n`];
  const walk = (nodes: Node[], prefix: string) => {
    nodes.forEach((node, i) => {
      const last = i === nodes.length - 1;
      const edge = last ? "└──" : "├──";
      const head = node.meta !== undefined ? `[${node.meta}]  ` : "";
      out.push(`${prefix}${edge} ${head}${valueText(node)}\n`);
      walk(node.children, prefix + (last ? SPACE : LINK));
    });
  };
  walk(root.children, "");
  return out.join("");
}
