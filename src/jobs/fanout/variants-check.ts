import type { InstallationPort, InstallationRepository, RepoPort } from "../../github/port.js";
import { indexRefs } from "../../lifecycle/refs.js";
import { parseRevisionTag } from "../../lifecycle/revision-tag.js";
import {
  formatProblem,
  isSourceUpstream,
  isVariantFile,
  loadVariants,
  parseVariantFile,
  type RepositoryInfo,
  selectableObjects,
  VARIANTS_DIR,
} from "../../variants/index.js";
import { checkCompleted, reportCheck } from "../check-report.js";
import { type JobContext, repoName } from "../context.js";
import { listSelectedAccounts, reachElsewhere } from "./elsewhere.js";
import { readRegistrationFiles, registeredMetadata, registryOf } from "./registrations.js";
import { shortName } from "./snapshot.js";

/** The check run on a management repository's pull request that changes its variant files. */
const VARIANTS_CHECK = "porchlight/variants";

export type VariantsCheckOutcome =
  | { kind: "skipped"; reason: string }
  | { kind: "checked"; problems: number; variants: number };

/**
 * A pull request changing `.porchlight/variants/` → check run `porchlight/variants`: every variant file
 * of its head parsed, sets expanded against the installation's repositories, variants checked against
 * each other and against published upstream packages; each problem an annotation at its file and line.
 * The same head is checked once.
 */
export async function checkVariantFiles(
  ctx: JobContext,
  installation: InstallationPort,
  input: {
    pull: number;
    /** The base and head the event named: a change of no variant file is told by git, no REST read. */
    baseSha?: string;
    headSha?: string;
  },
): Promise<VariantsCheckOutcome> {
  if (input.baseSha && input.headSha) {
    const named = await ctx.port.changedPaths(input.baseSha, input.headSha);
    if (!named.some((p) => p.startsWith(`${VARIANTS_DIR}/`)))
      return { kind: "skipped", reason: `#${input.pull} changes no variant file` };
  }
  const pr = await ctx.port.getPull(input.pull);
  if (pr.state !== "open") return { kind: "skipped", reason: `#${pr.number} is not open` };
  const changed = await ctx.port.changedPaths(pr.baseSha, pr.headSha);
  if (!changed.some((p) => p.startsWith(`${VARIANTS_DIR}/`)))
    return { kind: "skipped", reason: `#${pr.number} changes no variant file` };
  if (await checkCompleted(ctx.port, pr.headSha, [VARIANTS_CHECK]))
    return { kind: "skipped", reason: `#${pr.number} is already checked at ${pr.headSha.slice(0, 7)}` };
  const { tree } = await ctx.port.readTree(pr.headSha, VARIANTS_DIR);
  const files = [...tree]
    .map(([path, bytes]) => ({ path: `${VARIANTS_DIR}/${path}`, text: bytes.toString("utf8") }))
    .filter((f) => isVariantFile(f.path));
  const all = (await installation.listRepositories()).filter((r) => !r.archived);
  const own = new Set(all.map((r) => r.fullName));
  const keyOf = (r: InstallationRepository) => (own.has(r.fullName) ? shortName(r) : r.fullName);
  const ports = new Map(all.map((r) => [r.fullName, installation.repo(r)] as const));
  const registry = registryOf(all, ctx.port.id.owner);
  const registrationPort = registry && ports.get(registry.fullName);
  const registered =
    registry && registrationPort
      ? registeredMetadata(
          all.map((r) => ({ name: keyOf(r), fullName: r.fullName })),
          await readRegistrationFiles(registry, registrationPort),
          registry.fullName,
        ).byFullName
      : new Map();
  const repositories: RepositoryInfo[] = all.map((r) => ({
    name: keyOf(r),
    fullName: r.fullName,
    topics: r.topics,
    ...registered.get(r.fullName),
  }));
  // Accounts sets select in by owner (`other/cluster-*`), and repositories named `owner/name` in the app's
  // other installations, as fan-out reaches them.
  const first = loadVariants(files, { repositories, managementRepo: ctx.port.id.repo });
  const selected = await listSelectedAccounts(
    ctx.installationFor,
    first.selectedAccounts.filter((a) => a !== ctx.port.id.owner.toLowerCase()),
  );
  for (const { repository, port } of selected.repositories) {
    if (own.has(repository.fullName)) continue;
    all.push(repository);
    ports.set(repository.fullName, port);
    repositories.push({ name: keyOf(repository), fullName: repository.fullName, topics: repository.topics });
  }
  const named = loadVariants(files, { repositories, managementRepo: ctx.port.id.repo });
  const elsewhere = await reachElsewhere(ctx.installationFor, named.unknownRepositories);
  for (const { repository, port } of elsewhere.repositories) {
    all.push(repository);
    ports.set(repository.fullName, port);
    repositories.push({ name: keyOf(repository), fullName: repository.fullName, topics: repository.topics });
  }
  // A set's objectSelector selects among the objects of the repository as the pull request leaves it.
  const selectsObjects = files.some((f) =>
    parseVariantFile(f.path, f.text).sets.some((s) => s.set.spec.targets.some((t) => t.objectSelector)),
  );
  const objects = selectsObjects
    ? selectableObjects(
        [...(await ctx.port.readTree(pr.headSha)).tree].map(
          ([path, bytes]) => [path, bytes.toString("utf8")] as const,
        ),
      )
    : [];
  const context = {
    repositories,
    managementRepo: ctx.port.id.repo,
    unreachable: elsewhere.unreachable,
    unreachableAccounts: selected.unreachable,
    objects,
    namespace: ctx.port.id.owner,
  };
  const packages: Record<string, string[]> = {};
  for (const lv of loadVariants(files, context).variants) {
    const declared = lv.variant.spec.upstream;
    if (isSourceUpstream(declared)) continue;
    const up = all.find((r) => keyOf(r) === declared.repo || r.fullName === declared.repo);
    if (!up || packages[keyOf(up)]) continue;
    const port = up.fullName === repoName(ctx) ? ctx.port : (ports.get(up.fullName) as RepoPort);
    const names = new Set<string>();
    for (const tag of indexRefs(await port.listRefs()).tags.keys()) {
      const parsed = parseRevisionTag(tag);
      if (parsed.ok) names.add(parsed.value.package);
    }
    packages[keyOf(up)] = [...names];
  }
  const loaded = loadVariants(files, { ...context, packages });
  const n = loaded.problems.filter((p) => p.severity !== "warning").length;
  const warnings = loaded.problems.length - n;
  const counted = (k: number, what: string) => `${k} ${what}${k === 1 ? "" : "s"}`;
  await reportCheck(ctx.port, {
    name: VARIANTS_CHECK,
    headSha: pr.headSha,
    conclusion: n ? "failure" : "success",
    title: n
      ? `${counted(n, "problem")} in variant files${warnings ? `, ${counted(warnings, "warning")}` : ""}`
      : warnings
        ? `${loaded.variants.length} variants, ${counted(warnings, "warning")}`
        : `${loaded.variants.length} variants`,
    summary: n
      ? `Fan-out skips the variants at fault and goes on with the others.\n\n${loaded.problems.map((p) => `- \`${formatProblem(p)}\``).join("\n")}`
      : `Every variant file parses and names known repositories and published packages: ${loaded.variants.length} variants.${
          warnings
            ? ` Fan-out runs them as written; what they write is likely not what is meant:\n\n${loaded.problems.map((p) => `- \`${formatProblem(p)}\``).join("\n")}`
            : ""
        }`,
    annotations: loaded.problems.map((p) => ({
      path: p.file,
      start_line: p.line,
      end_line: p.line,
      annotation_level: p.severity === "warning" ? ("warning" as const) : ("failure" as const),
      message: `${p.field ? `${p.field}: ` : ""}${p.message}${p.hint ? ` (${p.hint})` : ""}`,
    })),
  });
  return { kind: "checked", problems: n, variants: loaded.variants.length };
}
