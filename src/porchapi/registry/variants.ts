import { createHash, randomUUID } from "node:crypto";
import { isDeepStrictEqual } from "node:util";
import { labelsMatch, parseLabelSelector, SelectorError } from "../../api/label-selector.js";
import { registrationsOf } from "../../porch/namespace.js";
import { registryAuthor } from "../../porch/registrations.js";
import type { Registration } from "../../porch/repository.js";
import { parseFieldSelector } from "../../porch/selectors.js";
import {
  finalizersOf,
  isTerminating,
  PACKAGE_VARIANT_FINALIZER,
  parseVariantFile,
  VARIANTS_DIR,
  type VariantProblem,
} from "../../variants/index.js";
import type { KubeObject } from "../resources.js";
import { ApiError, conflict, notFound } from "../status.js";
import type { Caller, ListOptions } from "../store.js";
import { asApiErrors, callerAccess, type StoreSettings } from "./context.js";
import type { Storage, WriteTarget } from "./door.js";
import { withVersion } from "./revisions.js";
import {
  documentText,
  editFile,
  type ManagementRepo,
  openManagement,
  type VariantDocument,
  variantDocuments,
  type WrittenObject,
  writeVariantFiles,
} from "./variant-files.js";
import { packageVariantSetStatus, packageVariantStatus, statusReader } from "./variant-status.js";

const GROUP = "config.porch.kpt.dev";

type Kind = "PackageVariant" | "PackageVariantSet";

/** What one request reads of a namespace: its registrations and its management repositories' variants. */
interface NamespaceVariants {
  access: { token: string; apiUrl: string | undefined; cacheDir: string };
  registrations: Map<string, Registration>;
  /** Every document of the kind, the first of a name winning (repository, then file, then position). */
  documents: VariantDocument[];
  /** The management repositories read, by `owner/name` in lower case. */
  repos: Map<string, ManagementRepo>;
}

/** How one kind's objects are read: the namespace's variant documents, and their objects with status. */
function variantReads(settings: StoreSettings, kind: Kind) {
  const resource = `${kind.toLowerCase()}s`;
  const read = async (caller: Caller, ns: string): Promise<NamespaceVariants> => {
    const access = await callerAccess(settings, caller);
    const { registrations } = await registrationsOf(access, ns);
    const fulls = [...new Set([...registrations.values()].map((r) => r.full.toLowerCase()))].sort();
    // a repository the caller cannot read holds no objects of theirs, as rpkg get leaves it out
    const settled = await Promise.allSettled(fulls.map((full) => openManagement(access, full)));
    const repos = new Map<string, ManagementRepo>();
    settled.forEach((s, i) => {
      if (s.status === "fulfilled") repos.set(fulls[i] as string, s.value);
    });
    const seen = new Set<string>();
    const documents = [...repos.values()]
      .flatMap(variantDocuments)
      .filter((d) => d.kind === kind && !seen.has(d.name) && seen.add(d.name));
    return { access, registrations, documents, repos };
  };
  const objectsOf = async (nv: NamespaceVariants, ns: string, docs: readonly VariantDocument[]) => {
    const reader = statusReader(nv.access, nv.registrations);
    return Promise.all(
      docs.map(async (d) => {
        const problems = documentProblems(d);
        const status =
          kind === "PackageVariant"
            ? await packageVariantStatus(d, problems, reader)
            : packageVariantSetStatus(d, problems);
        const written = d.data.metadata as Record<string, unknown>;
        const metadata = { ...written, namespace: ns, uid: written.uid ?? derivedUid(d) };
        return withVersion({ ...d.data, metadata, status } as KubeObject);
      }),
    );
  };
  const find = async (caller: Caller, ns: string, name: string) => {
    const nv = await read(caller, ns);
    const doc = nv.documents.find((d) => d.name === name);
    if (!doc)
      throw notFound(
        resource,
        GROUP,
        name,
        `no variant file of a repository registered in namespace ${ns} holds it`,
      );
    return { nv, doc };
  };
  const get = (caller: Caller, ns: string, name: string) =>
    asApiErrors(async () => {
      const { nv, doc } = await find(caller, ns, name);
      return (await objectsOf(nv, ns, [doc]))[0] as KubeObject;
    });
  return { resource, read, objectsOf, find, get };
}

/**
 * Porch's PackageVariant and PackageVariantSet objects of a namespace: the documents of the variant files
 * (`.porchlight/variants/*.yaml`, on the default branch) of the repositories registered in it, which is
 * where fan-out reads them (docs/variants.md). Create commits a file to the upstream's repository (the
 * management repository by default), update and delete the document's own file; each as the caller, once
 * the door found their permission there lets them write.
 */
export function variantStorage(settings: StoreSettings, kind: Kind): Storage {
  const { resource, read, objectsOf, find, get } = variantReads(settings, kind);
  const author = (nv: NamespaceVariants) => registryAuthor(nv.access, settings.env);
  const object = (verb: WrittenObject["verb"], name: string): WrittenObject => ({
    verb,
    resource,
    group: GROUP,
    name,
  });
  const taken = (name: string) =>
    new ApiError("AlreadyExists", `${resource}.${GROUP} "${name}" already exists`, {
      name,
      group: GROUP,
      kind: resource,
    });

  /** This kind's document `name` in the variant files as read at one head, or 404 saying it went. */
  const locate = (repo: ManagementRepo, name: string): VariantDocument => {
    const found = variantDocuments(repo).find((d) => d.kind === kind && d.name === name);
    if (found) return found;
    throw notFound(resource, GROUP, name, `it was removed from the variant files of ${repo.full} meanwhile`);
  };
  /**
   * The document a write planned on (`doc`) in the files read again at a new head: the same object, or
   * 409 where it changed since it was read — the one thing that makes a write conflict (a commit that
   * touched other documents only moved the branch).
   */
  const unchanged = (repo: ManagementRepo, doc: VariantDocument): VariantDocument => {
    if (repo === doc.repo) return doc;
    const found = locate(repo, doc.name);
    if (isDeepStrictEqual(found.data, doc.data)) return found;
    throw conflict(resource, GROUP, doc.name);
  };

  /** The management repository a write lands in: the caller's permission there decides. */
  const where = (repo: ManagementRepo): WriteTarget => ({
    full: repo.full,
    permission: repo.conn.info.permission,
    whoami: repo.conn.whoami,
    keeps: "the variant files",
  });

  return {
    managedFields: true,
    list: (caller, ns, opts) =>
      asApiErrors(async () => {
        const { labels, names } = selectors(opts, resource);
        const nv = await read(caller, ns);
        const kept = nv.documents.filter((d) => {
          const meta = d.data.metadata as { labels?: Record<string, string> };
          return (names === undefined || names === d.name) && labelsMatch(labels, meta.labels ?? {});
        });
        return objectsOf(nv, ns, kept);
      }),
    get,
    async create(caller, ns, obj) {
      const name = nameOf(obj, kind);
      const nv = await read(caller, ns);
      if (nv.documents.some((d) => d.name === name)) throw taken(name);
      const full = managementOf(obj, kind, ns, nv.registrations);
      const repo = nv.repos.get(full.toLowerCase()) ?? (await openManagement(nv.access, full));
      return {
        name,
        target: where(repo),
        async run() {
          const file = `${name}.yaml`;
          const text = checked(obj, kind, ns, repo, file, created(obj, kind));
          await writeVariantFiles(
            repo,
            (now) => {
              // the name taken meanwhile, by a create that landed first: as the API server's
              if (now !== repo && variantDocuments(now).some((d) => d.kind === kind && d.name === name))
                throw taken(name);
              return {
                kind: "edit",
                message: `Add ${kind} ${name} (kubectl)`,
                edit(files) {
                  const before = files.get(file)?.toString("utf8");
                  files.set(file, Buffer.from(before ? `${before.replace(/\n*$/, "\n")}---\n${text}` : text));
                },
              };
            },
            await author(nv),
            object("create", name),
          );
          return get(caller, ns, name);
        },
      };
    },
    async update(caller, ns, obj, current, subresource) {
      const name = nameOf(obj, kind);
      const { nv, doc } = await find(caller, ns, name);
      const fresh = (await objectsOf(nv, ns, [doc]))[0] as KubeObject;
      if (!sameDocument(fresh, current)) throw conflict(resource, GROUP, name);
      return {
        name,
        target: where(doc.repo),
        async run() {
          // porchlight's fan-out is the controller and works the status out from GitHub on every read: a
          // status written is not kept (it would go stale), and a write to /status changes nothing else
          if (subresource === "status") return fresh;
          const meta = updated(obj, doc, kind);
          // the last finalizer of an object being deleted gone: the object goes, as the API server removes it
          const gone = isTerminating(meta) && finalizersOf(meta).length === 0;
          const text = gone ? undefined : checked(obj, kind, ns, doc.repo, doc.path, meta);
          await writeVariantFiles(
            doc.repo,
            (now) => {
              const mine = unchanged(now, doc);
              return {
                kind: "edit",
                message: gone
                  ? `Delete ${kind} ${name}: its last finalizer removed (kubectl)`
                  : `Update ${kind} ${name} (kubectl)`,
                edit: (files) => editDocument(files, mine, text),
              };
            },
            await author(nv),
            object("update", name),
          );
          return gone ? fresh : get(caller, ns, name);
        },
      };
    },
    async delete(caller, ns, name) {
      const { nv, doc } = await find(caller, ns, name);
      return {
        name,
        target: where(doc.repo),
        async run() {
          // decided again on each head the write is planned on: a delete has no version to hold it to
          let outcome = { kind: "held" } as DeleteOutcome;
          await writeVariantFiles(
            doc.repo,
            (now) => {
              const mine = now === doc.repo ? doc : locate(now, name);
              const meta = mine.data.metadata as Record<string, unknown>;
              const finalizers = finalizersOf(meta);
              // finalizers hold it: marked for deletion, for its controllers (porchlight's fan-out for its own)
              if (finalizers.length > 0 && isTerminating(meta)) {
                outcome = { kind: "held" };
                return { kind: "none" };
              }
              if (finalizers.length > 0) {
                outcome = { kind: "marked" };
                const marked = {
                  ...mine.data,
                  metadata: {
                    ...meta,
                    deletionTimestamp: kubeTime(new Date()),
                    deletionGracePeriodSeconds: 0,
                  },
                };
                return {
                  kind: "edit",
                  message: `Mark ${kind} ${name} for deletion: finalizers ${finalizers.join(", ")} (kubectl)`,
                  edit: (files) => editDocument(files, mine, documentText(marked)),
                };
              }
              outcome = { kind: "removed", doc: mine };
              return {
                kind: "edit",
                message: `Delete ${kind} ${name} (kubectl)`,
                edit: (files) => editDocument(files, mine, undefined),
              };
            },
            await author(nv),
            object("delete", name),
          );
          // the object as it was last, for a removal; else as it is now, marked
          if (outcome.kind === "removed") return (await objectsOf(nv, ns, [outcome.doc]))[0] as KubeObject;
          return get(caller, ns, name);
        },
      };
    },
  };
}

/** What a delete did: nothing (already marked, its finalizers hold it), marked it, or removed its document. */
type DeleteOutcome = { kind: "held" } | { kind: "marked" } | { kind: "removed"; doc: VariantDocument };

/** Document `doc` of its file replaced by `text` (undefined: removed, and the file with its last one). */
function editDocument(files: Map<string, Buffer>, doc: VariantDocument, text: string | undefined): void {
  const next = editFile(fileText(doc), doc.index, text);
  if (next === undefined) files.delete(doc.path);
  else files.set(doc.path, Buffer.from(next));
}

/**
 * Whether two reads of an object show the same document: its status (fan-out's, read from GitHub each
 * time) may move between them, as a controller's status write does, without making a write stale.
 */
function sameDocument(a: KubeObject, b: KubeObject): boolean {
  const doc = ({ status: _, metadata, ...rest }: KubeObject) => {
    const { resourceVersion: _rv, ...meta } = metadata ?? {};
    return { ...rest, metadata: meta };
  };
  return isDeepStrictEqual(doc(a), doc(b));
}

const fileText = (doc: VariantDocument) => doc.repo.files.get(doc.path)?.toString("utf8") ?? "";

/** The object's name, or 422 naming metadata.name. */
function nameOf(obj: KubeObject, kind: Kind): string {
  const name = obj.metadata?.name;
  if (typeof name === "string" && name !== "") return name;
  throw new ApiError(
    "Invalid",
    `${kind}.${GROUP} "" is invalid: metadata.name: Required value: name is required`,
    {
      group: GROUP,
      kind,
      causes: [
        { reason: "FieldValueRequired", message: "Required value: name is required", field: "metadata.name" },
      ],
    },
  );
}

/** porchlight's annotation choosing the management repository an object created through the API goes to. */
const MANAGEMENT_ANNOTATION = "porchlight.dev/management-repository";

/**
 * The management repository an object created through the API is written to: the repository the
 * annotation porchlight.dev/management-repository names, else its upstream's (fan-out's default
 * management repository, which publishing there fans out). It must be registered in the namespace (by
 * registration name, OWNER/NAME, or NAME of the namespace's owner), where the API reads variant files.
 */
function managementOf(
  obj: KubeObject,
  kind: Kind,
  ns: string,
  registrations: ReadonlyMap<string, Registration>,
): string {
  const spec = (obj.spec ?? {}) as { upstream?: Record<string, unknown> };
  const annotations = (obj.metadata?.annotations ?? {}) as Record<string, unknown>;
  const chosen = annotations[MANAGEMENT_ANNOTATION];
  const field =
    chosen !== undefined ? `metadata.annotations[${MANAGEMENT_ANNOTATION}]` : "spec.upstream.repo";
  const repo = chosen ?? spec.upstream?.repo;
  const name = String(obj.metadata?.name ?? "");
  const invalid = (reason: string, message: string) =>
    new ApiError("Invalid", `${kind}.${GROUP} "${name}" is invalid: ${field}: ${message}`, {
      name,
      group: GROUP,
      kind,
      causes: [{ reason, message, field }],
    });
  if (typeof repo !== "string" || repo === "")
    throw invalid(
      "FieldValueRequired",
      `Required value: through the API it names the repository whose .porchlight/variants/ keeps the ${kind} (for an OCI or tarball upstream, set the annotation ${MANAGEMENT_ANNOTATION}: NAME)`,
    );
  const wanted = [repo, `${ns}/${repo}`].map((r) => r.toLowerCase());
  const full =
    registrations.get(repo)?.full ??
    [...registrations.values()].find((r) => wanted.includes(r.full.toLowerCase()))?.full;
  if (full === undefined)
    throw invalid(
      "FieldValueInvalid",
      `Invalid value: "${repo}": no repository registered in namespace ${ns} is ${repo}, and the API reads variant files of registered repositories only (register it: kubectl apply a Repository, or porchlight repo register)`,
    );
  return full;
}

/**
 * What the API server sets on its own and a client's write never changes. The file keeps uid,
 * creationTimestamp and the deletion's marks (set by porchlight: created, updated, deleted); the
 * resourceVersion is the object's digest, never written.
 */
const SERVER_SET = [
  "resourceVersion",
  "uid",
  "creationTimestamp",
  "deletionTimestamp",
  "deletionGracePeriodSeconds",
  "generation",
  "selfLink",
] as const;

/** Kubernetes' metav1.Time: RFC 3339 to the second. */
const kubeTime = (at: Date) => `${at.toISOString().slice(0, 19)}Z`;

/**
 * A uid for a document written by hand (one created through the API keeps the one it was given): stable
 * across reads, from where the document is and what it is.
 */
function derivedUid(d: VariantDocument): string {
  const h = createHash("sha1").update(`${d.repo.full.toLowerCase()}\n${d.kind}\n${d.name}`).digest("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${((Number.parseInt(h[16] ?? "0", 16) & 3) | 8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/**
 * The server's metadata of an object created through the API: a new uid, the time, and porchlight's
 * finalizer on a PackageVariant, as Porch's controller adds it to every one it sees.
 */
function created(obj: KubeObject, kind: Kind): Record<string, unknown> {
  const finalizers = finalizersOf(obj.metadata);
  if (kind === "PackageVariant" && !finalizers.includes(PACKAGE_VARIANT_FINALIZER))
    finalizers.push(PACKAGE_VARIANT_FINALIZER);
  return {
    uid: randomUUID(),
    creationTimestamp: kubeTime(new Date()),
    ...(finalizers.length > 0 ? { finalizers } : {}),
  };
}

/**
 * The server's metadata of an update: what the file holds (uid, creation and deletion marks), and the
 * finalizers the client wrote — none added to an object being deleted (422, as the API server), and
 * porchlight's own kept on a PackageVariant not being deleted, as Porch's controller puts it back.
 */
function updated(obj: KubeObject, doc: VariantDocument, kind: Kind): Record<string, unknown> {
  const stored = doc.data.metadata as Record<string, unknown>;
  const kept = Object.fromEntries(
    SERVER_SET.flatMap((k) => (stored[k] !== undefined ? [[k, stored[k]]] : [])),
  );
  const finalizers = finalizersOf(obj.metadata);
  if (isTerminating(stored)) {
    const before = finalizersOf(stored);
    const added = finalizers.filter((f) => !before.includes(f));
    if (added.length > 0)
      throw new ApiError(
        "Invalid",
        `${kind}.${GROUP} "${doc.name}" is invalid: metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers ${JSON.stringify(added)}`,
        {
          name: doc.name,
          group: GROUP,
          kind,
          causes: [
            {
              reason: "FieldValueForbidden",
              message: "Forbidden: no new finalizers can be added if the object is being deleted",
              field: "metadata.finalizers",
            },
          ],
        },
      );
  } else if (kind === "PackageVariant" && !finalizers.includes(PACKAGE_VARIANT_FINALIZER))
    finalizers.push(PACKAGE_VARIANT_FINALIZER);
  return { ...kept, finalizers };
}

/**
 * The object as its variant file's document, checked by src/variants' parser as fan-out will read it: any
 * error (a warning passes) is 422 Invalid, each problem a cause naming its field.
 */
function checked(
  obj: KubeObject,
  kind: Kind,
  ns: string,
  repo: ManagementRepo,
  path: string,
  server: Record<string, unknown>,
): string {
  const { status: _, ...written } = obj;
  const metadata: Record<string, unknown> = { ...written.metadata };
  for (const key of [...SERVER_SET, "finalizers"]) delete metadata[key];
  for (const [key, value] of Object.entries(server))
    if (key !== "finalizers" || (Array.isArray(value) && value.length > 0)) metadata[key] = value;
  if (Array.isArray(metadata.managedFields) && metadata.managedFields.length === 0)
    delete metadata.managedFields;
  if (repo.full.split("/")[0]?.toLowerCase() === ns.toLowerCase()) metadata.namespace = ns;
  else delete metadata.namespace;
  const text = documentText({ ...written, metadata });
  const file = `${VARIANTS_DIR}/${path}`;
  const parsed = parseVariantFile(file, text, { managementRepo: repo.full.split("/")[1] ?? repo.full });
  const errors = parsed.problems.filter((p) => p.severity !== "warning");
  if (errors.length === 0) return text;
  const name = String(metadata.name ?? "");
  const said = (p: VariantProblem) => `${p.message}${p.hint ? ` (${p.hint})` : ""}`;
  const listed = errors.map((p) =>
    p.field && !p.message.startsWith(p.field) ? `${p.field}: ${said(p)}` : said(p),
  );
  throw new ApiError(
    "Invalid",
    `${kind}.${GROUP} "${name}" is invalid: ${listed.length === 1 ? listed[0] : `[${listed.join(", ")}]`}`,
    {
      name,
      group: GROUP,
      kind,
      // kubectl prints each cause after its field: a message in Porch's words, which starts with it, loses it
      causes: errors.map((p) => ({
        reason: p.missing ? "FieldValueRequired" : "FieldValueInvalid",
        message: p.field && said(p).startsWith(`${p.field} `) ? said(p).slice(p.field.length + 1) : said(p),
        field: p.field,
      })),
    },
  );
}

/** The problems src/variants' parser finds in one document (its file parsed, those naming it). */
function documentProblems(doc: VariantDocument): VariantProblem[] {
  const parsed = parseVariantFile(`${VARIANTS_DIR}/${doc.path}`, fileText(doc), {
    managementRepo: doc.repo.full.split("/")[1] ?? doc.repo.full,
  });
  return parsed.problems.filter((p) => p.variant === doc.name);
}

/** Label selectors, and metadata.name as the one field selector a variant file answers. */
function selectors(opts: ListOptions, resource: string) {
  try {
    let names: string | undefined;
    for (const f of parseFieldSelector(opts.fieldSelector ?? "")) {
      if (f.field !== "metadata.name" || f.op === "!=")
        throw new ApiError(
          "BadRequest",
          `"${f.field}" is not a known field selector: only "metadata.name=NAME" selects ${resource}`,
        );
      names = f.value;
    }
    return { labels: parseLabelSelector(opts.labelSelector ?? ""), names };
  } catch (e) {
    if (e instanceof SelectorError) throw new ApiError("BadRequest", e.message);
    throw e;
  }
}
