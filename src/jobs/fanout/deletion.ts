import { isCollection } from "yaml";
import type { CommitAuthor, PullRequest } from "../../github/port.js";
import { kptfileDocument } from "../../kpt/kptfile.js";
import { type FileTree, subtree } from "../../kpt/tree.js";
import {
  DELETION_POLICY_ANNOTATION,
  type FanoutAction,
  formatVariantPullRequest,
  MANAGED_BY_ANNOTATION,
  SPEC_HASH_ANNOTATION,
} from "../../variants/index.js";
import { FanoutStepError } from "./context.js";
import { upsertPullRequest } from "./open-pr.js";
import { pushVariantBranch } from "./push.js";
import type { RepoSnapshot } from "./snapshot.js";

type RemovalAction = Extract<FanoutAction, { kind: "deletion-proposal" | "orphan" }>;

/**
 * A variant removed from the management repository, by the deletionPolicy its downstream recorded:
 * `delete` proposes deleting the package (a pull request labelled `porchlight/deletion`), `orphan`
 * proposes removing porchlight's annotations so the package stays, unmanaged. Nothing is deleted
 * without a person merging it.
 */
export async function proposeRemoval(
  snap: RepoSnapshot,
  action: RemovalAction,
  existing: PullRequest | undefined,
  author: CommitAuthor,
): Promise<{ number: number } | undefined> {
  const pkg = action.downstream.package;
  const kind = action.kind === "orphan" ? "orphan" : "deletion";
  const tree = kind === "deletion" ? new Map<string, Buffer>() : released(subtree(snap.tree, pkg), pkg);
  const pushed = await pushVariantBranch(snap, {
    branch: action.branch,
    dir: pkg,
    tree,
    message:
      kind === "deletion"
        ? `Delete ${pkg}: variant ${action.variant} was removed (deletionPolicy delete)`
        : `Release ${pkg} from variant ${action.variant} (deletionPolicy orphan)`,
    author,
  });
  if (pushed.kind === "nothing") return undefined;
  const text = formatVariantPullRequest({ kind, variant: action.variant, downstream: action.downstream });
  return upsertPullRequest(snap, existing, { branch: action.branch, ...text });
}

/** The package with porchlight's tracking annotations removed from its Kptfile. */
function released(tree: FileTree, pkg: string): FileTree {
  const text = tree.get("Kptfile")?.toString("utf8");
  if (text === undefined) throw new FanoutStepError(`${pkg}/Kptfile is missing`);
  const doc = kptfileDocument(text, `${pkg}/Kptfile`);
  for (const key of [MANAGED_BY_ANNOTATION, DELETION_POLICY_ANNOTATION, SPEC_HASH_ANNOTATION])
    doc.deleteIn(["metadata", "annotations", key]);
  const annotations = doc.getIn(["metadata", "annotations"]);
  if (isCollection(annotations) && annotations.items.length === 0) doc.deleteIn(["metadata", "annotations"]);
  const out = new Map(tree);
  out.set("Kptfile", Buffer.from(doc.toString({ lineWidth: 0 })));
  return out;
}
