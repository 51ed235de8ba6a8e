/** Porch's PackageRevision lifecycle values, with the same spelling. */
const LIFECYCLES = ["Draft", "Proposed", "Published", "DeletionProposed"] as const;
export type Lifecycle = (typeof LIFECYCLES)[number];

/**
 * The moves Porch allows, and what each is on GitHub: Draft → Proposed (open the pull request),
 * Proposed → Draft (`/reject`: close it, keep the branch), Proposed → Published (approve: merge and tag),
 * Published → DeletionProposed (`/propose-delete`), DeletionProposed → Published (the deletion rejected).
 * A published revision never goes back to draft: a change is a new draft, a rollback a new draft with an
 * older revision's content.
 */
const MOVES: Record<Lifecycle, readonly Lifecycle[]> = {
  Draft: ["Proposed"],
  Proposed: ["Draft", "Published"],
  Published: ["DeletionProposed"],
  DeletionProposed: ["Published"],
};

/** Why a revision cannot move from one lifecycle to another, or undefined when it can. */
export function transitionProblem(from: Lifecycle, to: Lifecycle): string | undefined {
  if (MOVES[from].includes(to)) return undefined;
  if (from === to) return `the revision is already ${to}`;
  const allowed = MOVES[from].join(" or ");
  return `a ${from} revision can only become ${allowed}, not ${to}`;
}
