import { parsePackageBranch } from "../../lifecycle/package-branch.js";
import { repoName } from "../context.js";
import { renderDraft } from "../render-draft/index.js";
import type { VerbHandler } from "./types.js";

/** `/render`: render the draft again now, even if its head was rendered before. */
export const render: VerbHandler<"render"> = async (ctx, { pr }) => {
  if (pr.headRepo !== repoName(ctx)) {
    return {
      kind: "refused",
      reason:
        "`/render` only renders draft branches of this repository; this pull request comes from a fork.",
    };
  }
  if (!parsePackageBranch(pr.headRef).ok) {
    return { kind: "refused", reason: `\`/render\` needs a draft branch; \`${pr.headRef}\` is not one.` };
  }
  const outcome = await renderDraft(ctx, { branch: pr.headRef, force: true });
  switch (outcome.kind) {
    case "pushed":
      return { kind: "rendered", commitSha: outcome.commitSha };
    case "clean":
      return { kind: "rendered" };
    case "failed":
      return { kind: "refused", reason: `Rendering failed, nothing was pushed: ${outcome.error}` };
    case "skipped":
      return { kind: "refused", reason: `Nothing to render: ${outcome.reason}.` };
  }
};
