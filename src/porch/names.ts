import { nearestName } from "../config/nearest-name.js";
import {
  DRAFT_PREFIX,
  type PackageRevision,
  parseDraftBranch,
  parseRevisionTag,
  revisionName,
} from "../lifecycle/index.js";
import { PorchError, RevisionNotFound } from "./errors.js";
import type { RepoState, Repository } from "./repository.js";

/** The name `rpkg get` shows for a revision (Porch's `<repository>.<package>.<workspace>`). */
export function nameOf(
  repo: Pick<Repository, "name">,
  rev: Pick<PackageRevision, "package" | "workspace">,
): string {
  return revisionName(repo.name, rev);
}

/**
 * Finds the revision `arg` names: its Porch-style name as `rpkg get` prints it, or the git ref it lives
 * on (`drafts/<package>/<workspace>` for a draft, `<package>/v<N>` for a published revision). An unknown
 * or ambiguous name fails with what exists and how to list it.
 */
export function findRevision(repo: Repository, state: RepoState, arg: string): PackageRevision {
  const byName = state.revisions.filter((r) => nameOf(repo, r) === arg);
  if (byName.length === 1) return byName[0] as PackageRevision;
  if (byName.length > 1) {
    const refs = byName.map((r) => r.ref.replace(/^refs\/(heads|tags)\//, "")).join(" and ");
    throw new PorchError(
      "bad-request",
      `${arg} names more than one revision in ${repo.full} (${refs}); name one by its ref instead, e.g. \`${byName[0]?.ref.replace(/^refs\/(heads|tags)\//, "")}\``,
    );
  }
  const byNumber = publishedByNumber(repo, state, arg);
  if (byNumber) return byNumber;
  const draft = parseDraftBranch(arg);
  if (draft.ok) {
    const found = state.revisions.find((r) => r.ref === `refs/heads/${arg}`);
    if (found) return found;
    throw new PorchError(
      "not-found",
      `no draft revision ${draft.value.package}/${draft.value.workspace} in ${repo.full}: drafts are branches ${DRAFT_PREFIX}${draft.value.package}/<workspace>; list them with \`porchlight rpkg get --repository ${repo.full}\``,
      undefined,
      didYouMean(nearestRef(state, arg, "refs/heads/")),
    );
  }
  const tag = parseRevisionTag(arg);
  if (tag.ok) {
    const found = state.revisions.find((r) => r.ref === `refs/tags/${arg}`);
    if (found) return found;
    throw new PorchError(
      "not-found",
      `${tag.value.package} has no published revision v${tag.value.revision} in ${repo.full} (no tag ${arg}); list revisions with \`porchlight rpkg get --repository ${repo.full} --name ${tag.value.package}\``,
      undefined,
      didYouMean(nearestRef(state, arg, "refs/tags/")),
    );
  }
  throw new RevisionNotFound(
    arg,
    `no package revision named ${arg} in ${repo.full}: names look like ${repo.name}.<package>.<workspace>; list them with \`porchlight rpkg get --repository ${repo.full}\``,
    didYouMean(
      nearestName(
        arg,
        state.revisions.map((r) => nameOf(repo, r)),
      ),
    ),
  );
}

/** The draft branch or revision tag (`prefix`, shown without it) closest to a mistyped one, if any is close. */
function nearestRef(state: RepoState, arg: string, prefix: string): string | undefined {
  const refs = state.revisions.filter((r) => r.ref.startsWith(prefix)).map((r) => r.ref.slice(prefix.length));
  return nearestName(arg, refs);
}

/**
 * `repo.pkg.v<N>` for published revision N when no revision has that exact name: a published revision
 * keeps its workspace's name for life (as in Porch), and earlier porchlight versions named it by its
 * number, so scripts written against them still find it.
 */
function publishedByNumber(repo: Repository, state: RepoState, arg: string): PackageRevision | undefined {
  const match = /^(.+)\.v([1-9][0-9]*)$/.exec(arg);
  if (!match) return undefined;
  const [, prefix, number] = match;
  return state.revisions.find(
    (r) =>
      r.revision === Number(number) &&
      r.lifecycle !== "Draft" &&
      r.lifecycle !== "Proposed" &&
      nameOf(repo, { package: r.package, workspace: "" }) === `${prefix}.`,
  );
}

/** A revision with an open proposal: Proposed, or DeletionProposed, with its pull request. */
export type ProposalRevision = PackageRevision & {
  lifecycle: "Proposed" | "DeletionProposed";
  pullRequest: number;
};

/** `rev` as a proposal (it has a pull request), or an PorchError with `refusal`'s text. */
export function asProposal(rev: PackageRevision, refusal: () => string): ProposalRevision {
  if ((rev.lifecycle !== "Proposed" && rev.lifecycle !== "DeletionProposed") || rev.pullRequest === undefined)
    throw new PorchError("bad-request", refusal());
  return rev as ProposalRevision;
}

/** The draft branch of a revision, or undefined for a published one (it lives on a tag). */
export function branchOf(rev: PackageRevision): string | undefined {
  return rev.ref.startsWith("refs/heads/") ? rev.ref.slice("refs/heads/".length) : undefined;
}

/** The ref name to fetch a revision's files from. */
export function refNameOf(rev: PackageRevision): string {
  return rev.ref.replace(/^refs\/(heads|tags)\//, "");
}

/**
 * Porch's refusal to make a revision from the `.<branch>` revision, a placeholder for the package on
 * the registered branch: it is not a revision of its own (pkg/task: clone, edit, upgrade). `role` is
 * Porch's word for it (`upstream revision`, `source revision`, `target upstream revision`).
 */
export function refusePlaceholder(
  role: string,
  repo: Pick<Repository, "name" | "full">,
  rev: Pick<PackageRevision, "package" | "workspace" | "revision">,
): void {
  if (rev.revision !== -1) return;
  const name = nameOf(repo, rev);
  throw new PorchError(
    "bad-request",
    `Internal error occurred: ${role} may not be the placeholder package revision ${repo.name}/${name}`,
    `${name} stands for the package on ${rev.workspace}, not a revision of it: name a published revision of ${rev.package} instead (\`porchlight rpkg get --repository ${repo.full} --name ${rev.package}\`)`,
  );
}

/** "did you mean …?" for the name closest to a mistyped one, or undefined when none is close. */
function didYouMean(name: string | undefined): string | undefined {
  return name === undefined ? undefined : `did you mean ${name}?`;
}
