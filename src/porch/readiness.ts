import { type Document, isMap, isSeq, type YAMLMap } from "yaml";
import { editKptfile, readKptfileStruct } from "../kpt/kptfile.js";
import type { PackageRevision } from "../lifecycle/index.js";
import { PorchError } from "./errors.js";
import type { Repository } from "./repository.js";

/**
 * A revision's readiness as Porch shows it: its Kptfile's `info.readinessGates` as the PackageRevision's
 * `spec.readinessGates`, and its `status.conditions` as the PackageRevision's `status.conditions`
 * (pkg/repository/util.go ToAPIReadinessGates, ToAPIConditions). Nothing writes a PackageRevision's
 * status directly: a controller writes the Kptfile (a PUT of its PackageRevisionResources), or updates
 * the PackageRevision, whose gates and conditions Porch writes back into the Kptfile (patchKptfile).
 */
interface ReadinessGate {
  conditionType: string;
}

interface Condition {
  type: string;
  /** "True", "False" or "Unknown". */
  status: string;
  reason?: string;
  message?: string;
}

export interface Readiness {
  gates: ReadinessGate[];
  conditions: Condition[];
}

type Fields = Record<string, unknown>;
const isFields = (v: unknown): v is Fields => typeof v === "object" && v !== null && !Array.isArray(v);
const text = (v: unknown): string | undefined =>
  v === undefined || v === null || typeof v === "object" ? undefined : String(v);

/** The gates and conditions of a Kptfile read as data (entries without their key field left out). */
export function readinessOf(kptfile: Fields): Readiness {
  const info = isFields(kptfile.info) ? kptfile.info : {};
  const status = isFields(kptfile.status) ? kptfile.status : {};
  const gates = (Array.isArray(info.readinessGates) ? info.readinessGates : []).flatMap((g) => {
    const type = isFields(g) ? text(g.conditionType) : undefined;
    return type ? [{ conditionType: type }] : [];
  });
  return { gates, conditions: conditionsOf(status.conditions) };
}

/** A list of conditions as given (a Kptfile's, or an object's `status.conditions`), each with its type. */
function conditionsOf(list: unknown): Condition[] {
  return (Array.isArray(list) ? list : []).flatMap((c) => {
    if (!isFields(c)) return [];
    const type = text(c.type);
    if (!type) return [];
    const reason = text(c.reason);
    const message = text(c.message);
    return [
      { type, status: text(c.status) ?? "", ...(reason ? { reason } : {}), ...(message ? { message } : {}) },
    ];
  });
}

/** The gates and conditions of a Kptfile's text; none when it cannot be read (the render check reports it). */
export function readinessOfKptfile(kptfile: string, file: string): Readiness {
  try {
    return readinessOf(readKptfileStruct(kptfile, file));
  } catch {
    return { gates: [], conditions: [] };
  }
}

/**
 * The gates not met, as Porch's PackageRevisionIsReady decides: a gate is met by a condition of its type
 * whose status is "True". Empty when the revision is ready.
 */
export function unmetGates({ gates, conditions }: Readiness): string[] {
  const byType = new Map(conditions.map((c) => [c.type, c]));
  return gates.filter((g) => byType.get(g.conditionType)?.status !== "True").map((g) => g.conditionType);
}

/**
 * What an update of a PackageRevision asks to be written into the Kptfile, as Porch's PatchKptfile reads
 * it: `spec.packageMetadata.labels` and `.annotations` (each replacing the Kptfile's, where given),
 * `spec.readinessGates` and `status.conditions` (each synced, where given: a list given empty removes
 * them all, a list left out changes nothing).
 */
export interface KptfileChanges {
  /** A create's: the labels and annotations are added to the Kptfile's, not put in their place. */
  add?: boolean;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  gates?: ReadinessGate[];
  conditions?: Condition[];
}

const textMap = (v: unknown): Record<string, string> | undefined =>
  isFields(v)
    ? Object.fromEntries(
        Object.entries(v).flatMap(([k, x]) => {
          const t = text(x);
          return t === undefined ? [] : [[k, t] as const];
        }),
      )
    : undefined;

/**
 * The Kptfile changes a PackageRevision object asks for; undefined when it names none. A create's
 * (Porch's applyMetadataToKptfile after the first task) adds labels and annotations and takes no
 * conditions.
 */
export function kptfileChanges(
  obj: Record<string, unknown>,
  write: "create" | "update" = "update",
): KptfileChanges | undefined {
  const spec = isFields(obj.spec) ? obj.spec : {};
  const status = isFields(obj.status) ? obj.status : {};
  const meta = isFields(spec.packageMetadata) ? spec.packageMetadata : {};
  const out: KptfileChanges = {};
  const labels = textMap(meta.labels);
  const annotations = textMap(meta.annotations);
  if (labels) out.labels = labels;
  if (annotations) out.annotations = annotations;
  if (Array.isArray(spec.readinessGates))
    out.gates = readinessOf({ info: { readinessGates: spec.readinessGates } }).gates;
  if (Array.isArray(status.conditions) && write === "update")
    out.conditions = conditionsOf(status.conditions);
  if (Object.keys(out).length === 0) return undefined;
  return write === "create" ? { add: true, ...out } : out;
}

const sameMap = (a: Record<string, string>, b: Record<string, string>) =>
  JSON.stringify(Object.entries(a).sort()) === JSON.stringify(Object.entries(b).sort());

/**
 * The Kptfile with `changes` written into it as Porch writes them (generictaskhandler.go PatchKptfile):
 * labels and annotations replaced when they differ; gates kept in their order where still wanted,
 * dropped where not, the new ones appended; conditions the same, each kept one updated in place (its
 * reason and message removed when the new one has none). Every other byte stays as it was (the YAML
 * engine writes the document back as kpt does). Undefined when nothing changes.
 */
export function patchKptfile(kptfile: string, file: string, changes: KptfileChanges): string | undefined {
  const current = readinessOfKptfile(kptfile, file);
  const meta = readKptfileStruct(kptfile, file).metadata;
  return editKptfile(kptfile, file, (doc) => {
    let changed = false;
    for (const key of ["labels", "annotations"] as const) {
      const had = textMap(isFields(meta) ? meta[key] : undefined) ?? {};
      const want = changes[key] && (changes.add ? { ...had, ...changes[key] } : changes[key]);
      if (!want) continue;
      if (sameMap(had, want)) continue;
      changed = true;
      if (Object.keys(want).length === 0) doc.deleteIn(["metadata", key]);
      else doc.setIn(["metadata", key], doc.createNode(want));
    }
    if (changes.gates) changed = syncGates(doc, current.gates, changes.gates) || changed;
    if (changes.conditions) changed = syncConditions(doc, current.conditions, changes.conditions) || changed;
    return changed;
  });
}

function syncGates(doc: Document, had: ReadinessGate[], want: ReadinessGate[]): boolean {
  const wanted = new Set(want.map((g) => g.conditionType));
  const kept = had.filter((g) => wanted.has(g.conditionType));
  const added = want.filter(
    (g, i) =>
      !had.some((h) => h.conditionType === g.conditionType) &&
      want.findIndex((x) => x.conditionType === g.conditionType) === i,
  );
  if (kept.length === had.length && added.length === 0) return false;
  const seq = doc.getIn(["info", "readinessGates"], true);
  if (isSeq(seq)) {
    // the kept entries as they were (their comments and order), the new ones after them
    seq.items = seq.items.filter((item) => {
      const type = isMap(item) ? text((item as YAMLMap).get("conditionType")) : undefined;
      return type !== undefined && wanted.has(type);
    });
    for (const g of added) seq.items.push(doc.createNode({ conditionType: g.conditionType }));
    if (seq.items.length === 0) doc.deleteIn(["info", "readinessGates"]);
  } else if (added.length > 0) {
    doc.setIn(["info", "readinessGates"], doc.createNode(added.map((g) => ({ ...g }))));
  }
  return true;
}

function syncConditions(doc: Document, had: Condition[], want: Condition[]): boolean {
  const desired = new Map<string, Condition>();
  for (const c of want) desired.set(c.type, c);
  const seq = doc.getIn(["status", "conditions"], true);
  let changed = false;
  const items = isSeq(seq) ? seq.items : [];
  const keptItems = items.filter((item) => {
    const type = isMap(item) ? text((item as YAMLMap).get("type")) : undefined;
    const next = type === undefined ? undefined : desired.get(type);
    if (!next) {
      changed = true;
      return false;
    }
    const was = had.find((c) => c.type === type);
    const map = item as YAMLMap;
    if (was?.status !== next.status || was?.reason !== next.reason || was?.message !== next.message) {
      changed = true;
      map.set("status", next.status);
      for (const key of ["reason", "message"] as const)
        if (next[key]) map.set(key, next[key]);
        else map.delete(key);
    }
    desired.delete(type as string);
    return true;
  });
  const added = [...desired.values()];
  if (!changed && added.length === 0) return false;
  const nodes = [...keptItems, ...added.map((c) => doc.createNode({ ...c }))];
  if (nodes.length === 0) {
    doc.deleteIn(["status", "conditions"]);
    const status = doc.get("status", true);
    if (isMap(status) && status.items.length === 0) doc.delete("status");
  } else if (isSeq(seq)) seq.items = nodes;
  else doc.setIn(["status", "conditions"], doc.createNode(added.map((c) => ({ ...c }))));
  return true;
}

/**
 * Refuses to move a revision whose readiness gates are not met (its Kptfile at the revision's commit), as
 * porchctl's propose and approve refuse it ("readiness conditions not met"): Nephio's controllers and
 * porchctl hold a revision back until each gate's condition is "True". A client's check, as in Porch,
 * whose server moves a revision whatever its gates say: rpkg's propose and approve make it, the API
 * does not (a controller or a person with kubectl decides, as with Porch).
 */
export async function requireReady(
  repo: Pick<Repository, "conn" | "packageDir">,
  rev: Pick<PackageRevision, "package" | "sha">,
  name: string,
): Promise<void> {
  const file = `${repo.packageDir(rev.package)}/Kptfile`;
  const text = await repo.conn.port.getFile(file, rev.sha);
  if (text === undefined) return;
  const unmet = unmetGates(readinessOfKptfile(text, file));
  if (unmet.length === 0) return;
  throw new PorchError(
    "bad-request",
    "readiness conditions not met",
    `${name} waits for ${unmet.map((t) => `condition ${t}`).join(", ")} to be "True" (its Kptfile's info.readinessGates; status.conditions says where each stands)`,
  );
}
