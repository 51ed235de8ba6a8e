import type { RevisionArg } from "../../commands/catalog-args.js";
import type { PullRequest } from "../../github/port.js";
import { parsePackageBranch } from "../../lifecycle/package-branch.js";
import { indexRefs, type RefInfo } from "../../lifecycle/refs.js";
import { parseRevisionTag } from "../../lifecycle/revision-tag.js";
import type { JobContext } from "../context.js";

export type Resolved<T> = { ok: true; value: T } | { ok: false; reason: string };

/** The package a pull request proposes (its branch `drafts/<package>/<workspace>`), if any. */
export function packageOfPull(pr: PullRequest | null): string | undefined {
  if (!pr) return undefined;
  const draft = parsePackageBranch(pr.headRef);
  return draft.ok ? draft.value.package : undefined;
}

/**
 * The revision a merged proposal of `pkg` was published as: the revision tag of `pkg` on its merge
 * commit. Undefined when it is not merged, or its merge carries no such tag.
 */
export function publishedAs(pr: PullRequest, pkg: string, refs: readonly RefInfo[]): number | undefined {
  if (!pr.merged || !pr.mergeCommitSha) return undefined;
  for (const [name, sha] of indexRefs(refs).tags) {
    const parsed = parseRevisionTag(name);
    if (sha === pr.mergeCommitSha && parsed.ok && parsed.value.package === pkg) return parsed.value.revision;
  }
  return undefined;
}

/**
 * The published revision a catalog command names: `basens/v2` anywhere; `v2` on a proposal of the
 * package; nothing on the proposal that published it. Otherwise a refusal saying how to name it.
 */
export async function resolveRevision(
  ctx: JobContext,
  pr: PullRequest | null,
  arg: RevisionArg,
  verb: string,
): Promise<Resolved<{ package: string; revision: number }>> {
  const pkg = arg.package ?? packageOfPull(pr);
  if (!pkg) {
    return {
      ok: false,
      reason: pr
        ? `#${pr.number} is not a proposal of a package (its branch is \`${pr.headRef}\`); name the revision by its tag, like \`/${verb} basens/v2\`.`
        : outsideProposal(verb),
    };
  }
  if (arg.revision !== undefined) return { ok: true, value: { package: pkg, revision: arg.revision } };
  const revision = pr ? publishedAs(pr, pkg, await ctx.port.listRefs()) : undefined;
  if (revision === undefined) {
    return {
      ok: false,
      reason: `\`/${verb}\` without a revision means the revision this pull request published, and #${pr?.number} published none; name one, like \`/${verb} v2\`.`,
    };
  }
  return { ok: true, value: { package: pkg, revision } };
}

/** How to name a revision where no proposal names the package. */
export function outsideProposal(verb: string): string {
  return `Outside a proposal of a package of this repository (in an issue, or on a fork's pull request), name the revision by its tag, like \`/${verb} basens/v2\`.`;
}
