import { CONFIG_PATH, parseRepoConfig, problemAt } from "../../config/parse.js";
import { formatProblem } from "../../config/problem.js";
import { configCheckOutput } from "../../config/report.js";
import { reportCheck } from "../check-report.js";
import { CHECK, type JobContext, repoName } from "../context.js";
import { NO_OPERATOR_CREDENTIALS } from "../mirror/index.js";

export type CheckConfigOutcome =
  | { kind: "skipped"; reason: string }
  | { kind: "checked"; headSha: string; ok: boolean; problems: number };

/**
 * A pull request that changes `.github/porchlight.yml` → `porchlight/config` on its head: failing with
 * an annotation at each problem's line, or passing. The proposed file is only validated: everything
 * porchlight runs keeps using the configuration of the default branch until the change merges.
 */
export async function checkProposedConfig(
  ctx: JobContext,
  input: {
    pull: number;
    defaultBranch: string;
    /** The base and head the event named: a change that leaves the file alone is told by git, no REST read. */
    baseSha?: string;
    headSha?: string;
  },
): Promise<CheckConfigOutcome> {
  if (input.baseSha && input.headSha) {
    // git may not serve a commit the event named (a base force-pushed away since, a fork's head): then
    // the pull request is read, as without them
    const named = await ctx.port.changedPaths(input.baseSha, input.headSha).catch(() => undefined);
    if (named && !named.includes(CONFIG_PATH))
      return { kind: "skipped", reason: `#${input.pull} does not change ${CONFIG_PATH}` };
  }
  const pr = await ctx.port.getPull(input.pull);
  if (pr.state !== "open") return { kind: "skipped", reason: `#${pr.number} is not open` };
  if (pr.baseRef !== input.defaultBranch) {
    return {
      kind: "skipped",
      reason: `#${pr.number} targets ${pr.baseRef}; porchlight reads its configuration from ${input.defaultBranch}`,
    };
  }
  const changed = await ctx.port.changedPaths(pr.baseSha, pr.headSha);
  if (!changed.includes(CONFIG_PATH)) {
    return { kind: "skipped", reason: `#${pr.number} does not change ${CONFIG_PATH}` };
  }
  const { tree } = await ctx.port.readTree(pr.headSha, ".github");
  const bytes = tree.get("porchlight.yml");
  if (bytes === undefined) {
    await reportCheck(ctx.port, {
      name: CHECK.config,
      headSha: pr.headSha,
      conclusion: "success",
      title: `${CONFIG_PATH} is removed`,
      summary: `Once this pull request merges, porchlight uses its defaults (or the organisation's \`.github\` repository's ${CONFIG_PATH}).`,
    });
    return { kind: "checked", headSha: pr.headSha, ok: true, problems: 0 };
  }
  const text = bytes.toString("utf8");
  const source = { path: CONFIG_PATH, ref: pr.headRef };
  const parsed = parseRepoConfig(text, source);
  // A well-formed `_extends` parses (src/config/parse.ts); one that names nothing is a problem here too.
  const problems = parsed.ok
    ? registryProblems(ctx, parsed.config.registries ?? {}).map((p) =>
        problemAt(text, source, p.path, p.message),
      )
    : parsed.problems;
  if (problems.length > 0) {
    const output = configCheckOutput(problems);
    await reportCheck(ctx.port, {
      name: CHECK.config,
      headSha: pr.headSha,
      conclusion: "failure",
      title: output.title,
      summary: [
        `The ${CONFIG_PATH} this pull request proposes has ${problems.length === 1 ? "a problem" : `${problems.length} problems`}; fix ${problems.length === 1 ? "it" : "them"} before merging. Meanwhile porchlight keeps running with the configuration of \`${input.defaultBranch}\`.`,
        "",
        ...problems.map((p) => `- ${formatProblem(p)}`),
      ].join("\n"),
      annotations: output.annotations,
    });
    return { kind: "checked", headSha: pr.headSha, ok: false, problems: problems.length };
  }
  await reportCheck(ctx.port, {
    name: CHECK.config,
    headSha: pr.headSha,
    conclusion: "success",
    title: `${CONFIG_PATH} is valid`,
    summary: `porchlight can use the proposed ${CONFIG_PATH}. It takes effect when this pull request merges; until then porchlight runs with the configuration of \`${input.defaultBranch}\`.`,
  });
  return { kind: "checked", headSha: pr.headSha, ok: true, problems: 0 };
}

/**
 * `registries:` entries this repository may not use: a credential the operator does not define, or does
 * not allow this repository (the operator's PORCHLIGHT_REGISTRY_CREDENTIALS), or any name where the
 * operator defines no named credentials.
 */
function registryProblems(
  ctx: Pick<JobContext, "mirror" | "port">,
  registries: Readonly<Record<string, string>>,
): { path: string[]; message: string }[] {
  const out: { path: string[]; message: string }[] = [];
  for (const [registry, name] of Object.entries(registries)) {
    const operator = ctx.mirror?.operator;
    const refused = operator
      ? operator.refusal(repoName(ctx), registry, name)?.replace(/^registries\.[^:]+: /, "")
      : NO_OPERATOR_CREDENTIALS;
    if (refused) out.push({ path: ["registries", registry], message: refused });
  }
  return out;
}
