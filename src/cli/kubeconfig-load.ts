import { readFileSync } from "node:fs";
import { delimiter, dirname, join, resolve } from "node:path";
import { parse } from "yaml";
import { z } from "zod";
import { UsageError } from "./io.js";
import { PORCHLIGHT_EXTENSION } from "./kubeconfig.js";

/**
 * Reading a kubeconfig as kubectl and porchctl do (client-go's loading rules, behind genericclioptions'
 * flags): `--kubeconfig FILE` alone (it must exist), else the files KUBECONFIG lists (`:`-separated,
 * missing ones skipped), else ~/.kube/config; the files merged with the first to name a cluster, user or
 * context, or to set current-context, winning; the context `--context` names, else the current one;
 * `--cluster` and `--user` in place of the context's.
 */
export interface KubeFlags {
  kubeconfig?: string | undefined;
  context?: string | undefined;
  cluster?: string | undefined;
  user?: string | undefined;
}

/** The context chosen, with what porchlight takes of it. */
export interface KubeContext {
  /** The context's name and the file that defines it. */
  name: string;
  file: string;
  /** GitHub's REST base, from the cluster's extension `porchlight` (a kubeconfig porchlight wrote). */
  githubApiUrl: string | undefined;
  /** The user's name, and its token (tokenFile's content where it can be read, as client-go reads it). */
  user: string;
  token: string | undefined;
  /** The cluster's name, and its server. */
  cluster: string;
  server: string | undefined;
  namespace: string | undefined;
}

const extension = z.object({ name: z.string(), extension: z.unknown() });
const clusterSchema = z.object({ server: z.string().nullish(), extensions: z.array(extension).nullish() });
const userSchema = z.object({ token: z.string().nullish(), tokenFile: z.string().nullish() });
const contextSchema = z.object({
  cluster: z.string().nullish(),
  user: z.string().nullish(),
  namespace: z.string().nullish(),
});
/** kubeconfig's v1 Config, the fields porchlight reads (the rest is left as it is). */
const kubeconfigSchema = z.object({
  clusters: z.array(z.object({ name: z.string(), cluster: clusterSchema.nullish() })).nullish(),
  users: z.array(z.object({ name: z.string(), user: userSchema.nullish() })).nullish(),
  contexts: z.array(z.object({ name: z.string(), context: contextSchema.nullish() })).nullish(),
  "current-context": z.string().nullish(),
});
type Cluster = z.infer<typeof clusterSchema>;
type User = z.infer<typeof userSchema>;
type Context = z.infer<typeof contextSchema>;

interface Entry<T> {
  value: T;
  file: string;
}

interface Merged {
  /** The files read, in order. */
  files: string[];
  clusters: Map<string, Entry<Cluster>>;
  users: Map<string, Entry<User>>;
  contexts: Map<string, Entry<Context>>;
  current: Entry<string> | undefined;
}

/** A kubeconfig that cannot give what is asked of it: the message names the file and the context. */
export class KubeconfigError extends UsageError {
  constructor(message: string) {
    super(message, 1);
    this.name = "KubeconfigError";
  }
}

/** Where the kubeconfig is read from, as client-go's loading rules say. */
function kubeconfigFiles(flags: KubeFlags, env: NodeJS.ProcessEnv): { files: string[]; explicit: boolean } {
  if (flags.kubeconfig) return { files: [flags.kubeconfig], explicit: true };
  const listed = [...new Set((env.KUBECONFIG ?? "").split(delimiter).filter((f) => f !== ""))];
  if (listed.length > 0) return { files: listed, explicit: false };
  return { files: env.HOME ? [join(env.HOME, ".kube", "config")] : [], explicit: false };
}

function readMerged(flags: KubeFlags, env: NodeJS.ProcessEnv): Merged {
  const { files, explicit } = kubeconfigFiles(flags, env);
  const merged: Merged = {
    files: [],
    clusters: new Map(),
    users: new Map(),
    contexts: new Map(),
    current: undefined,
  };
  for (const file of files) {
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch (e) {
      // a file KUBECONFIG lists that is not there is skipped, as kubectl skips it; --kubeconfig's must be
      if ((e as NodeJS.ErrnoException).code === "ENOENT" && !explicit) continue;
      throw new KubeconfigError(`cannot read the kubeconfig ${file}: ${(e as Error).message}`);
    }
    merged.files.push(file);
    let doc: unknown;
    try {
      doc = parse(text);
    } catch (e) {
      throw new KubeconfigError(`${file} is not a kubeconfig: ${(e as Error).message}`);
    }
    const read = kubeconfigSchema.safeParse(doc ?? {});
    if (!read.success) {
      const issue = read.error.issues[0];
      throw new KubeconfigError(
        `${file} is not a kubeconfig: ${issue?.path.join(".") || "the document"}: ${issue?.message}`,
      );
    }
    const config = read.data;
    // the first file to name one wins, as client-go merges
    const add = <T>(into: Map<string, Entry<T>>, items: { name: string; value: T }[]) => {
      for (const { name, value } of items) if (!into.has(name)) into.set(name, { value, file });
    };
    add(
      merged.clusters,
      (config.clusters ?? []).map((c) => ({ name: c.name, value: c.cluster ?? {} })),
    );
    add(
      merged.users,
      (config.users ?? []).map((u) => ({ name: u.name, value: u.user ?? {} })),
    );
    add(
      merged.contexts,
      (config.contexts ?? []).map((c) => ({ name: c.name, value: c.context ?? {} })),
    );
    const current = config["current-context"];
    if (current && !merged.current) merged.current = { value: current, file };
  }
  return merged;
}

const where = (files: readonly string[]) =>
  files.length === 1 ? (files[0] ?? "") : `the kubeconfig files ${files.join(", ")}`;

/**
 * The context `flags` choose, read as kubectl reads it; `undefined` when no file is there (KUBECONFIG
 * and ~/.kube/config naming none). Every other gap is a KubeconfigError naming the file and context.
 */
export function kubeContext(flags: KubeFlags, env: NodeJS.ProcessEnv): KubeContext | undefined {
  const merged = readMerged(flags, env);
  if (merged.files.length === 0) return undefined;
  const files = where(merged.files);
  const name = flags.context || merged.current?.value;
  if (!name)
    throw new KubeconfigError(
      `${files} sets no current-context: name one with --context (contexts there: ${[...merged.contexts.keys()].join(", ") || "none"})`,
    );
  const context = merged.contexts.get(name);
  if (!context)
    throw new KubeconfigError(
      `context "${name}" is not in ${files}${flags.context ? "" : ` (its current-context, set in ${merged.current?.file})`}; contexts there: ${[...merged.contexts.keys()].join(", ") || "none"}`,
    );
  const clusterName = flags.cluster || context.value.cluster || "";
  const cluster = merged.clusters.get(clusterName);
  if (!cluster)
    throw new KubeconfigError(
      `cluster "${clusterName}" of context "${name}" (${context.file}) is not in ${files}`,
    );
  const userName = flags.user || context.value.user || "";
  const user = merged.users.get(userName);
  if (!user)
    throw new KubeconfigError(`user "${userName}" of context "${name}" (${context.file}) is not in ${files}`);
  return {
    name,
    file: context.file,
    githubApiUrl: githubOf(cluster, clusterName),
    user: userName,
    token: tokenOf(user, userName, name),
    cluster: clusterName,
    server: cluster.value.server ?? undefined,
    namespace: context.value.namespace || undefined,
  };
}

/** The GitHub a porchlight API serves, from its cluster's extension (kubeconfig.ts). */
function githubOf(cluster: Entry<Cluster>, name: string): string | undefined {
  const ext = cluster.value.extensions?.find((e) => e.name === PORCHLIGHT_EXTENSION)?.extension;
  if (ext === undefined) return undefined;
  const url = z.object({ "github-api-url": z.string() }).safeParse(ext).data?.["github-api-url"];
  if (typeof url !== "string" || !/^https?:\/\//.test(url))
    throw new KubeconfigError(
      `cluster "${name}" in ${cluster.file}: its extension "${PORCHLIGHT_EXTENSION}" has no github-api-url (GitHub's REST base, such as https://api.github.com); write the kubeconfig again with porchlight, or fix it`,
    );
  return url;
}

/**
 * The user's token as client-go takes it: `tokenFile` (relative to the file that names it, its content
 * trimmed) where it can be read, else `token`.
 */
function tokenOf(user: Entry<User>, name: string, context: string): string | undefined {
  const { token, tokenFile } = user.value;
  if (tokenFile) {
    const path = resolve(dirname(user.file), tokenFile);
    try {
      const text = readFileSync(path, "utf8").trim();
      if (text) return text;
    } catch (e) {
      if (!token)
        throw new KubeconfigError(
          `user "${name}" of context "${context}" (${user.file}): cannot read its tokenFile ${path}: ${(e as Error).message}`,
        );
    }
  }
  return token || undefined;
}
