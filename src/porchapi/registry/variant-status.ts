import { connectRepo, type RepoConnection } from "../../github/connect.js";
import type { PullRequest } from "../../github/port.js";
import { DASHBOARD_LABEL } from "../../jobs/fanout/context.js";
import { publishedRevisionsOf, publishedWorkspaceOf } from "../../jobs/publish/workspace.js";
import { revisionName } from "../../lifecycle/discover.js";
import { parseRevisionTag } from "../../lifecycle/revision-tag.js";
import { formatVariantBranch } from "../../lifecycle/variant-branch.js";
import type { RegistryAccess } from "../../porch/registrations.js";
import {
  DASHBOARD_MARKER,
  formatProblem,
  parseDashboardRow,
  parseRefusals,
  refusalHint,
  refusalMessage,
  UPSTREAM_NOT_ALLOWED,
  type UpstreamRefusal,
  type VariantProblem,
} from "../../variants/index.js";
import type { VariantDocument } from "./variant-files.js";

/** One of Porch's conditions of a PackageVariant(Set): Stalled or Ready. */
interface Condition {
  type: "Stalled" | "Ready";
  status: "True" | "False" | "Unknown";
  reason: string;
  message: string;
}

/** What one request reads of the downstream repositories, each at most once. */
export interface StatusReader {
  /** The pull requests from `branch` of `full` (newest first), or why they cannot be read. */
  pullsFrom(full: string, branch: string): Promise<PullRequest[] | string>;
  /** The registration name of `full` in the namespace (its GitHub name when unregistered). */
  registrationOf(full: string): string;
  /** The repository (`owner/name`) registration `name` of the namespace is, if any. */
  repositoryOf(name: string): string | undefined;
  /** The published revisions of package `pkg` of `full` (its tags `pkg/vN`), ascending, or why not. */
  publishedOf(full: string, pkg: string): Promise<number[] | string>;
  /**
   * The workspace of the downstream revision `pr` (a pull request from variant `variant`'s branch of
   * package `pkg` of `full`) is: a merged one's as its tag's commit names it, an open one's as the
   * listing names its draft (publishedWorkspaceOf); the variant's name when it cannot be read.
   */
  workspaceOf(full: string, pkg: string, variant: string, pr: PullRequest): Promise<string>;
  /** The body of the fan-out dashboard issue of a management repository ("" when none can be read). */
  dashboardOf(repo: VariantDocument["repo"]): Promise<string>;
}

export function statusReader(
  access: RegistryAccess,
  registrations: ReadonlyMap<string, { full: string }>,
): StatusReader {
  const conns = new Map<string, Promise<RepoConnection>>();
  const dashboards = new Map<string, Promise<string>>();
  const connect = (full: string) => {
    const known = conns.get(full);
    if (known) return known;
    const [owner = "", repo = ""] = full.split("/");
    const made = connectRepo({ ...access, repo: { owner, repo } });
    conns.set(full, made);
    return made;
  };
  return {
    async pullsFrom(full, branch) {
      try {
        return await (await connect(full)).port.listPullsFrom(branch);
      } catch (e) {
        return e instanceof Error ? e.message : String(e);
      }
    },
    dashboardOf(repo) {
      let body = dashboards.get(repo.full);
      if (!body) {
        body = repo.conn.port
          .findIssue({ label: DASHBOARD_LABEL, marker: DASHBOARD_MARKER })
          .then((issue) => issue?.body ?? "")
          .catch(() => "");
        dashboards.set(repo.full, body);
      }
      return body;
    },
    async publishedOf(full, pkg) {
      try {
        const refs = await (await connect(full)).port.listRefs();
        return refs
          .flatMap((r) => {
            if (!r.ref.startsWith("refs/tags/")) return [];
            const tag = parseRevisionTag(r.ref);
            return tag.ok && tag.value.package === pkg ? [tag.value.revision] : [];
          })
          .sort((a, b) => a - b);
      } catch (e) {
        return e instanceof Error ? e.message : String(e);
      }
    },
    async workspaceOf(full, pkg, variant, pr) {
      try {
        const { port } = await connect(full);
        const refs = await port.listRefs();
        // merged: the revision its tag names; open (or not tagged yet): the draft's, as the listing names it
        const published = pr.merged ? await publishedRevisionsOf(port, refs, pkg) : [];
        const tagged = published.find((r) => r.sha === pr.mergeCommitSha);
        return (
          tagged?.workspace ??
          (await publishedWorkspaceOf(port, refs, { package: pkg, workspace: variant, variant }))
        );
      } catch {
        return variant;
      }
    },
    repositoryOf(name) {
      return registrations.get(name)?.full;
    },
    registrationOf(full) {
      for (const [name, r] of registrations) if (r.full.toLowerCase() === full.toLowerCase()) return name;
      return full.slice(full.indexOf("/") + 1);
    },
  };
}

const VALID: Condition = {
  type: "Stalled",
  status: "False",
  reason: "Valid",
  message: "all validation checks passed",
};

/** Stalled from the document's problems, in Porch's words; undefined Ready when it is valid. */
function validity(problems: readonly VariantProblem[], kind: string): Condition[] | undefined {
  const errors = problems.filter((p) => p.severity !== "warning");
  if (errors.length === 0) return undefined;
  const message = errors.map(formatProblem).join("; ");
  return [
    { type: "Stalled", status: "True", reason: "ValidationError", message },
    {
      type: "Ready",
      status: "False",
      reason: kind === "PackageVariant" ? "Error" : "ValidationError",
      message: kind === "PackageVariant" ? "invalid packagevariant object" : message,
    },
  ];
}

const record = (v: unknown): Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

/**
 * A PackageVariant's status as porchlight knows it: Stalled from its validation, both from an upstream
 * fan-out refused to read for it (the dashboard's marker: who may make the bot read what), Ready from what
 * fan-out did in the downstream repository — the pull request of its branch `porchlight/variant/PACKAGE/NAME`
 * (open: the downstream's draft or proposal; merged: published), and that revision in downstreamTargets.
 */
export async function packageVariantStatus(
  doc: VariantDocument,
  problems: readonly VariantProblem[],
  reader: StatusReader,
): Promise<Record<string, unknown>> {
  const invalid = validity(problems, doc.kind);
  if (invalid) return { conditions: invalid };
  const spec = record(doc.data.spec);
  const downstream = record(spec.downstream);
  const repo = String(downstream.repo ?? "");
  const pkg = String(downstream.package ?? "");
  const full = repo.includes("/") ? repo : `${doc.repo.full.split("/")[0]}/${repo}`;
  const ready = (status: Condition["status"], reason: string, message: string): Condition => ({
    type: "Ready",
    status,
    reason,
    message,
  });
  // Who may make the bot read what: fan-out's last run refused to read the upstream for this variant
  const dashboard = await reader.dashboardOf(doc.repo);
  const refusal = refusalOf(parseRefusals(dashboard).get(doc.name), spec, doc, reader);
  if (refusal) return { conditions: refusedConditions(refusal, doc) };
  if (spec.paused === true)
    return {
      conditions: [VALID, ready("False", "Paused", "spec.paused: fan-out leaves the downstream alone")],
    };
  // A step fan-out's last run could not do (an upstream over a package limit, a merge it cannot make):
  // the downstream is not what the variant asks, whatever pull request an earlier run opened.
  const row = parseDashboardRow(dashboard, doc.name);
  if (row?.problem !== undefined && row.target)
    return {
      conditions: [
        VALID,
        ready(
          "False",
          "Error",
          `fan-out could not bring ${row.target} to ${pkg} in ${full} (its last run, on the dashboard issue of ${doc.repo.full}): ${row.problem}`,
        ),
      ],
    };
  const pulls = await reader.pullsFrom(full, formatVariantBranch({ package: pkg, variant: doc.name }));
  if (typeof pulls === "string")
    return { conditions: [VALID, ready("Unknown", "Error", `cannot read ${full}: ${pulls}`)] };
  const pr = pulls[0];
  if (!pr) {
    const missing = await missingUpstream(spec, doc, reader);
    if (missing)
      return {
        conditions: [
          { type: "Stalled", status: "True", reason: "ValidationError", message: missing },
          ready("False", "Error", missing),
        ],
      };
    return {
      conditions: [
        VALID,
        ready(
          "False",
          "Pending",
          `fan-out has opened no pull request in ${full} yet: the upstream revision is published, and the next fan-out run of ${doc.repo.full} opens it (its dashboard issue says why a variant waits)`,
        ),
      ],
    };
  }
  if (pr.state === "closed" && !pr.merged)
    return {
      conditions: [
        VALID,
        ready("False", "Error", `the downstream pull request ${pr.url} was closed without merging`),
      ],
    };
  // the downstream revision by the name it keeps for life (Draft, Proposed, Published alike)
  const target = {
    name: revisionName(reader.registrationOf(full), {
      package: pkg,
      workspace: await reader.workspaceOf(full, pkg, doc.name, pr),
    }),
  };
  const what = pr.merged ? "was merged (published)" : "proposes it";
  return {
    conditions: [
      VALID,
      ready(
        "True",
        "NoErrors",
        `successfully ensured downstream package variant: pull request ${pr.url} ${what}`,
      ),
    ],
    downstreamTargets: [target],
  };
}

/**
 * The refusal fan-out's last run recorded for the variant, when it is of the upstream the document names
 * now (a variant whose upstream was changed since is not held to its old one's verdict).
 */
function refusalOf(
  recorded: UpstreamRefusal | undefined,
  spec: Record<string, unknown>,
  doc: VariantDocument,
  reader: StatusReader,
): UpstreamRefusal | undefined {
  if (!recorded) return undefined;
  const repo = record(spec.upstream).repo;
  if (typeof repo !== "string" || repo === "") return undefined;
  const owner = doc.repo.full.split("/")[0];
  const named = [reader.repositoryOf(repo), repo.includes("/") ? repo : `${owner}/${repo}`];
  const wanted = recorded.upstream.toLowerCase();
  return named.some((n) => n?.toLowerCase() === wanted) ? recorded : undefined;
}

/**
 * A variant whose upstream fan-out does not read for it: it can make no progress until someone acts, so
 * Stalled (kstatus reads it as failed, not in progress) and not Ready, both saying what was refused, why,
 * and what to do.
 */
function refusedConditions(r: UpstreamRefusal, doc: VariantDocument): Condition[] {
  const message = `fan-out does not read ${r.upstream} for this variant, and clones or updates nothing (its last run, on the dashboard issue of ${doc.repo.full}): ${refusalMessage(r)}. To fan it out: ${refusalHint(r)}; fan-out's next run in ${doc.repo.full} (a push of its variant files, /fanout, or the sweep) then reads it`;
  return [
    { type: "Stalled", status: "True", reason: UPSTREAM_NOT_ALLOWED, message },
    { type: "Ready", status: "False", reason: UPSTREAM_NOT_ALLOWED, message },
  ];
}

/**
 * Why a git upstream has no revision to fan out, as Porch's controller stalls on an upstream it cannot
 * find ("could not find upstream package revision"), saying which revisions of the package are published:
 * none, or not the one `revision` names. Undefined when there is one (or it cannot be told: an OCI or
 * tarball upstream, the registered branch's head as `workspaceName: main`, a repository not readable).
 */
async function missingUpstream(
  spec: Record<string, unknown>,
  doc: VariantDocument,
  reader: StatusReader,
): Promise<string | undefined> {
  const upstream = record(spec.upstream);
  const repo = upstream.repo;
  const pkg = upstream.package;
  if (typeof repo !== "string" || typeof pkg !== "string" || upstream.workspaceName === "main") return;
  const full =
    reader.repositoryOf(repo) ?? (repo.includes("/") ? repo : `${doc.repo.full.split("/")[0]}/${repo}`);
  const published = await reader.publishedOf(full, pkg);
  if (typeof published === "string") return;
  const wanted =
    typeof upstream.revision === "number" && upstream.revision > 0 ? upstream.revision : undefined;
  const lead = `could not find upstream package revision: ${pkg} of ${repo}`;
  if (published.length === 0)
    return `${lead} has no published revision (no tag ${pkg}/vN in ${full}): publish one, and fan-out opens the downstream pull request`;
  if (wanted !== undefined && !published.includes(wanted))
    return `${lead} has no published revision ${wanted}: its published revisions are ${published.map((r) => `v${r}`).join(", ")} (spec.upstream.revision names one of them, or none for the latest)`;
  return;
}

/**
 * A PackageVariantSet's status: Stalled from its validation. Fan-out expands a set when it runs, against
 * the installation's repositories, and keeps no record of it but the generated variants' pull requests and
 * the dashboard: Ready is Unknown, saying where to look.
 */
export function packageVariantSetStatus(
  doc: VariantDocument,
  problems: readonly VariantProblem[],
): Record<string, unknown> {
  const invalid = validity(problems, doc.kind);
  if (invalid) return { conditions: invalid };
  return {
    conditions: [
      VALID,
      {
        type: "Ready",
        status: "Unknown",
        reason: "ExpandedAtFanout",
        message: `fan-out generates this set's variants when it runs; each one's pull request is on the dashboard issue of ${doc.repo.full}`,
      },
    ],
  };
}
