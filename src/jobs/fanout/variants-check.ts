import type { InstallationPort, InstallationRepository, RepoChecks, RepoPort } from "../../github/port.js";
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
  type VariantProblem,
} from "../../variants/index.js";
import { checkCompleted, reportCheck } from "../check-report.js";
import { type JobContext, repoName } from "../context.js";
import { listSelectedAccounts, reachElsewhere } from "./elsewhere.js";
import { readRegistrationFiles, registeredMetadata, registryOf } from "./registrations.js";
import { shortName } from "./snapshot.js";
import { type AuthorityRepo, refusalProblems, refusedUpstreams } from "./upstream-authority.js";

/**
 * The check run of a management repository's variant files: on a pull request that changes them, and on
 * the default branch's commit a fan-out run found problems in (default-branch-check.ts).
 */
export const VARIANTS_CHECK = "porchlight/variants";

export type VariantsCheckOutcome =
  | { kind: "skipped"; reason: string }
  | { kind: "checked"; problems: number; variants: number };

/**
 * A pull request changing `.porchlight/variants/` → check run `porchlight/variants`: every variant file
 * of its head parsed, sets expanded against the installation's repositories, variants checked against
 * each other and against published upstream packages, and each git upstream in another repository held to
 * who may make the bot read what (upstream-authority.ts); each problem an annotation at its file and line.
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
    // git may not serve a commit the event named (a base force-pushed away since, a fork's head): then
    // the pull request is read, as without them
    const named = await ctx.port.changedPaths(input.baseSha, input.headSha).catch(() => undefined);
    if (named && !named.some((p) => p.startsWith(`${VARIANTS_DIR}/`)))
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
  const upstreams = new Map<string, AuthorityRepo & { repository: InstallationRepository }>();
  for (const lv of loadVariants(files, context).variants) {
    const declared = lv.variant.spec.upstream;
    if (isSourceUpstream(declared)) continue;
    const up = all.find((r) => keyOf(r) === declared.repo || r.fullName === declared.repo);
    if (!up || packages[keyOf(up)]) continue;
    const port = up.fullName === repoName(ctx) ? ctx.port : (ports.get(up.fullName) as RepoPort);
    upstreams.set(up.fullName, { repository: up, port });
    const names = new Set<string>();
    for (const tag of indexRefs(await port.listRefs()).tags.keys()) {
      const parsed = parseRevisionTag(tag);
      if (parsed.ok) names.add(parsed.value.package);
    }
    packages[keyOf(up)] = [...names];
  }
  const loaded = loadVariants(files, { ...context, packages });
  // as fan-out will: a variant naming a private repository a writer of this one cannot read is refused
  const managementRepo = all.find((r) => r.fullName.toLowerCase() === repoName(ctx).toLowerCase());
  const refused = await refusedUpstreams(
    { repository: managementRepo ?? { fullName: repoName(ctx), private: undefined }, port: ctx.port },
    [...upstreams.values()],
  );
  const refusedOf = (lv: (typeof loaded.variants)[number]) => {
    const up = lv.variant.spec.upstream;
    if (isSourceUpstream(up)) return undefined;
    const repo = all.find((r) => keyOf(r) === up.repo || r.fullName === up.repo);
    return repo && refused.get(repo.fullName);
  };
  const problems = [...loaded.problems, ...refusalProblems(loaded.variants, refusedOf)];
  const variants = loaded.variants.filter((lv) => !refusedOf(lv)).length;
  const n = await reportVariantsCheck(ctx.port, { headSha: pr.headSha, problems, variants });
  return { kind: "checked", problems: n, variants };
}

/**
 * Check run `porchlight/variants` on `headSha`: failing when the variant files have errors (fan-out skips
 * the variants at fault and goes on with the others), each problem an annotation at its file and line.
 * Answers the number of errors.
 */
export async function reportVariantsCheck(
  port: RepoChecks,
  input: { headSha: string; problems: readonly VariantProblem[]; variants: number; externalId?: string },
): Promise<number> {
  const { problems, variants } = input;
  const n = problems.filter((p) => p.severity !== "warning").length;
  const warnings = problems.length - n;
  const counted = (k: number, what: string) => `${k} ${what}${k === 1 ? "" : "s"}`;
  const listed = problems.map((p) => `- \`${formatProblem(p)}\``).join("\n");
  await reportCheck(port, {
    name: VARIANTS_CHECK,
    headSha: input.headSha,
    conclusion: n ? "failure" : "success",
    title: n
      ? `${counted(n, "problem")} in variant files${warnings ? `, ${counted(warnings, "warning")}` : ""}`
      : warnings
        ? `${variants} variants, ${counted(warnings, "warning")}`
        : `${variants} variants`,
    summary: n
      ? `Fan-out skips the variants at fault and goes on with the others.\n\n${listed}`
      : `Every variant file parses and names known repositories and published packages: ${variants} variants.${
          warnings
            ? ` Fan-out runs them as written; what they write is likely not what is meant:\n\n${listed}`
            : ""
        }`,
    // a problem of another repository's file (a registration of the namespace) is in the summary only
    annotations: problems
      .filter((p) => p.file.startsWith(`${VARIANTS_DIR}/`))
      .map((p) => ({
        path: p.file,
        start_line: p.line,
        end_line: p.line,
        annotation_level: p.severity === "warning" ? ("warning" as const) : ("failure" as const),
        message: `${p.field ? `${p.field}: ` : ""}${p.message}${p.hint ? ` (${p.hint})` : ""}`,
      })),
    ...(input.externalId !== undefined ? { externalId: input.externalId } : {}),
  });
  return n;
}
