import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { isAbsolute, join } from "node:path";
import { parseAllDocuments, stringify } from "yaml";
import { shareReaders } from "../github/connect.js";
import { GitHubError } from "../github/errors.js";
import {
  openRegistry,
  type RegistryAccess,
  RegistryError,
  type RepositoryObject,
  registrationObject,
  registryAuthor,
} from "../porch/registrations.js";
import { parseGitAddress, REGISTRY_REPO } from "../porch/repo-address.js";
import { readiness } from "../porch/repo-status.js";
import { cacheRoot, DiskCache } from "./disk-cache.js";
import { type CliIO, UsageError } from "./io.js";
import { alignColumns, formatObjects, parseObjectFormat } from "./kubectl-output.js";
import { HELP } from "./repo-help.js";
import { parseLabels } from "./repo-labels.js";
import type { parseArgs } from "./rpkg/args.js";
import { describeFailure } from "./rpkg/errors.js";

/**
 * \`porchlight repo\`'s verbs once repo.ts has parsed the flags and found the token and the namespace:
 * the one named run in a cache folder of its own (removed after), and a failure other than a usage
 * error written as porchctl writes it, \`Error: ...\` on stderr, exit 1.
 */
export async function runRepoVerb(
  verb: string,
  args: Args,
  namespace: string,
  account: Omit<Access, "cacheDir">,
  io: CliIO,
): Promise<number> {
  const cacheDir = await mkdtemp(join(tmpdir(), "porchlight-repo-"));
  // across commands, as rpkg's (cli/disk-cache.ts): the registry's files by commit, GitHub's answers
  const root = cacheRoot(io.env);
  const disk = root === undefined ? undefined : new DiskCache(root);
  const access = { ...account, cacheDir, disk, conditional: disk };
  try {
    if (verb === "register" || verb === "reg") return await register(args, namespace, access, io);
    if (verb === "apply") return await apply(args, namespace, access, io);
    if (verb === "unregister" || verb === "unreg") return await unregister(args, namespace, access, io);
    if (verb === "sync") return await sync(args, namespace, access, io);
    return await get(args, namespace, access, io);
  } catch (e) {
    if (e instanceof UsageError) throw e;
    const what = e instanceof RegistryError ? e.message : describeFailure(e, `${namespace}/${REGISTRY_REPO}`);
    io.stderr(`Error: ${what}\n`);
    return 1;
  } finally {
    await rm(cacheDir, { recursive: true, force: true });
  }
}

type Args = ReturnType<typeof parseArgs>;
type Access = RegistryAccess & { timeoutMs: number | undefined };

async function register(args: Args, namespace: string, access: Access, io: CliIO): Promise<number> {
  const [address, ...more] = args.positional;
  if (!address || more.length > 0)
    throw new UsageError(`porchlight repo register takes one REPOSITORY_URL\n\n${HELP}`);
  const parsed = parseGitAddress(address, access.apiUrl);
  if (!parsed)
    throw new UsageError(
      `porchlight repo register: "${address}" is not a git repository's address: give its URL (https://github.com/OWNER/REPO.git, ssh://…, git@HOST:PATH) or OWNER/REPO`,
    );
  const name = args.values.get("name") ?? defaultName(address);
  const [branch, directory, description] = ["branch", "directory", "description"].map((f) =>
    args.values.get(f),
  );
  const labelsFlag = args.values.get("labels");
  const labels = labelsFlag === undefined ? {} : parseLabels(labelsFlag);
  const obj = registrationObject({
    name,
    namespace,
    repo: address,
    ...(Object.keys(labels).length ? { labels } : {}),
    ...(branch ? { branch } : {}),
    ...(directory ? { directory } : {}),
    ...(description ? { description } : {}),
    deployment: args.switches.has("deployment"),
    createBranch: args.switches.has("create-branch"),
  });
  const registry = await openRegistry(access, namespace, { create: true });
  await registry.add(obj, await registryAuthor(access, io.env));
  await shareRegistration(access, namespace, obj, io);
  return 0;
}

/**
 * The registration readable by whoever can read the repository it registers: they are given read
 * access to OWNER/.porchlight (kept private: it names every registered repository), so that
 * `rpkg --namespace` finds it for them too. When the caller may not do that, a warning says who must.
 */
async function shareRegistration(access: Access, namespace: string, obj: RepositoryObject, io: CliIO) {
  const address = parseGitAddress(obj.spec.git.repo, access.apiUrl);
  if (address?.kind !== "github") return;
  const registry = { owner: namespace, repo: REGISTRY_REPO };
  try {
    const given = await shareReaders(access, { owner: address.owner, repo: address.repo }, registry);
    // said, never done silently: access to a private repository was given
    if (given.length > 0)
      io.stderr(
        `gave read access to ${namespace}/${REGISTRY_REPO} to ${given.join(", ")} (they can read ${address.owner}/${address.repo}), so that \`rpkg --namespace=${namespace}\` finds registration "${obj.metadata.name}" for them\n`,
      );
  } catch (e) {
    if (!(e instanceof GitHubError)) throw e;
    io.stderr(
      `Warning: the people who can read ${address.owner}/${address.repo} could not be given read access to ${namespace}/${REGISTRY_REPO} (${e.message}); until an administrator of ${namespace}/${REGISTRY_REPO} gives it to them, \`rpkg --namespace=${namespace}\` does not find registration "${obj.metadata.name}" for them\n`,
    );
  }
}

/** porchctl's default name: the address's last path segment, without `.git`, lower case. */
function defaultName(address: string): string {
  const last = address.replace(/\/+$/, "").split(/[/:]/).pop() ?? "";
  return last.replace(/\.git$/, "").toLowerCase();
}

/** `repo apply -f FILE|-`: each Repository object of the file registered or replaced, as kubectl apply prints it. */
async function apply(args: Args, namespace: string, access: Access, io: CliIO): Promise<number> {
  const file = args.values.get("filename");
  if (!file || args.positional.length > 0)
    throw new UsageError(`porchlight repo apply takes -f FILE (or -f - for standard input)\n\n${HELP}`);
  const text =
    file === "-"
      ? await io.readStdin()
      : await readFile(isAbsolute(file) ? file : join(io.cwd, file), "utf8");
  const docs = parseAllDocuments(text);
  const objects: unknown[] = [];
  for (const doc of Array.isArray(docs) ? docs : [docs]) {
    const problem = doc.errors[0];
    if (problem) throw new RegistryError(`${file} is not YAML: ${problem.message}`);
    const value: unknown = doc.toJS();
    if (value === null || value === undefined) continue;
    // kubectl takes a List of objects too (what `repo get -o yaml` prints for several)
    const items =
      typeof value === "object" && "kind" in value && value.kind === "List" && "items" in value
        ? value.items
        : [value];
    objects.push(...(Array.isArray(items) ? items : [items]));
  }
  if (objects.length === 0) throw new RegistryError(`${file} holds no Repository object`);
  const registry = await openRegistry(access, namespace, { create: true });
  const who = await registryAuthor(access, io.env);
  for (const obj of objects) {
    const { name, outcome } = await registry.apply(stripStatus(obj), who);
    io.stdout(`repository.config.porch.kpt.dev/${name} ${outcome}\n`);
    const applied = outcome === "unchanged" ? undefined : await registry.get(name);
    if (applied) await shareRegistration(access, namespace, applied, io);
  }
  return 0;
}

/** An object without the status `get` added: status is observed, never applied. */
function stripStatus(obj: unknown): unknown {
  if (typeof obj !== "object" || obj === null) return obj;
  const { status: _status, ...rest } = obj as Record<string, unknown>;
  return rest;
}

async function unregister(args: Args, namespace: string, access: Access, io: CliIO): Promise<number> {
  if (args.positional.length === 0)
    throw new UsageError(`porchlight repo unregister needs the NAME of a registration\n\n${HELP}`);
  const registry = await openRegistry(access, namespace);
  const who = await registryAuthor(access, io.env);
  let failed = false;
  for (const name of args.positional) {
    if (!(await registry.remove(name, who))) {
      io.stderr(`Error: repositories.config.porch.kpt.dev "${name}" not found in namespace ${namespace}\n`);
      failed = true;
    }
  }
  return failed ? 1 : 0;
}

/**
 * `repo sync`: Porch refreshes its cache of a repository; porchlight has none (every command reads git),
 * so it checks that each named registration's repository can be read now, and says so.
 */
async function sync(args: Args, namespace: string, access: Access, io: CliIO): Promise<number> {
  const all = args.switches.has("all");
  if (!all && args.positional.length === 0)
    throw new RegistryError("repository name(s) required unless --all is set");
  const objects = await (await openRegistry(access, namespace)).list();
  if (all && objects.length === 0)
    throw new RegistryError(`no repositories found in namespace "${namespace}"`);
  const byName = new Map(objects.map((o) => [o.metadata.name, o]));
  let failed = false;
  for (const name of all ? [...byName.keys()] : args.positional) {
    const obj = byName.get(name);
    if (!obj) {
      io.stderr(
        `Error fetching repository "${name}": repositories.config.porch.kpt.dev "${name}" not found\n`,
      );
      failed = true;
      continue;
    }
    const ready = (await withStatus(obj, access)).status?.conditions[0];
    if (ready?.status === "True")
      io.stdout(`Repository "${name}" is in sync: porchlight reads it from git\n`);
    else {
      io.stderr(`Failed to update repository "${name}": ${ready?.message}\n`);
      failed = true;
    }
  }
  return failed ? 1 : 0;
}

/** The registration with Porch's Ready condition: whether porchlight can read its repository now (repo-status.ts). */
async function withStatus(obj: RepositoryObject, access: Access): Promise<RepositoryObject> {
  return { ...obj, status: { conditions: [await readiness(obj, access, access.timeoutMs)] } };
}

async function get(args: Args, namespace: string, access: Access, io: CliIO): Promise<number> {
  const output = args.values.get("output") ?? "table";
  const objectFormat = parseObjectFormat(output);
  if (!objectFormat && !["table", "wide", "yaml", "json"].includes(output))
    throw new UsageError(
      `porchlight repo get: unknown --output "${output}"; known: table, yaml, json, custom-columns=..., jsonpath=...`,
    );
  const registry = await openRegistry(access, namespace);
  let objects = await registry.list();
  let failed = false;
  if (args.positional.length > 0) {
    const byName = new Map(objects.map((o) => [o.metadata.name, o]));
    objects = [];
    for (const name of args.positional) {
      const found = byName.get(name);
      if (found) objects.push(found);
      else {
        io.stderr(`Error: repositories.config.porch.kpt.dev "${name}" not found\n`);
        failed = true;
      }
    }
  }
  objects = await Promise.all(objects.map((o) => withStatus(o, access)));
  const single = args.positional.length === 1 && objects.length === 1;
  const list = { apiVersion: "v1", kind: "List", metadata: { resourceVersion: "" }, items: objects };
  if (objectFormat) {
    if (objects.length > 0 || objectFormat.kind === "jsonpath")
      io.stdout(
        formatObjects(objectFormat, objects, { single, noHeaders: args.switches.has("no-headers"), list }),
      );
  } else if (output === "yaml") io.stdout(stringify(single ? objects[0] : list, { lineWidth: 0 }));
  else if (output === "json") io.stdout(`${JSON.stringify(single ? objects[0] : list, null, 4)}\n`);
  else if (objects.length > 0) {
    const rows = objects.map((o) => [
      o.metadata.name,
      o.spec.type,
      o.spec.content,
      "",
      String(o.spec.deployment === true),
      o.status?.conditions[0]?.status ?? "",
      o.spec.git.repo,
    ]);
    const header = ["NAME", "TYPE", "CONTENT", "SYNC SCHEDULE", "DEPLOYMENT", "READY", "ADDRESS"];
    io.stdout(alignColumns(args.switches.has("no-headers") ? rows : [header, ...rows]));
  }
  return failed ? 1 : 0;
}
