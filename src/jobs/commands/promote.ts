import { parsePackageBranch } from "../../lifecycle/package-branch.js";
import { promoteRevision } from "../catalog/promote.js";
import { readCatalog } from "../catalog/read.js";
import { repoName } from "../context.js";
import { reconcileFanout } from "../fanout/index.js";
import { fanoutContextOf } from "../fanout/jobs.js";
import { publishedAs } from "./target.js";
import type { VerbHandler } from "./types.js";

/**
 * `/promote [channel]` on a published revision's pull request: the revision its merge was tagged as joins
 * the channel (with none, the package's default channel) in the catalog, replacing the channel's head, then
 * downstreams following that channel are brought to it.
 */
export const promote: VerbHandler<"promote"> = async (ctx, { pr, args }) => {
  const draft = parsePackageBranch(pr.headRef);
  if (!draft.ok) {
    return {
      kind: "refused",
      reason: `\`/promote\` works on a package proposal; \`${pr.headRef}\` is not a draft branch.`,
    };
  }
  const pkg = draft.value.package;
  if (!pr.merged || !pr.mergeCommitSha) {
    return {
      kind: "refused",
      reason: `\`/promote\` needs a published revision; approve this proposal first.`,
    };
  }
  const revision = publishedAs(pr, pkg, await ctx.port.listRefs());
  if (revision === undefined) {
    return {
      kind: "refused",
      reason: `The merge of #${pr.number} carries no revision tag of ${pkg}; it was not published by porchlight.`,
    };
  }
  let channel = args.channel;
  if (channel === undefined) {
    const { catalog, problem } = await readCatalog(ctx.port);
    channel = catalog?.packages.find((p) => p.name === pkg)?.defaultChannel;
    if (channel === undefined)
      return {
        kind: "refused",
        reason: problem
          ? `Not promoted: ${problem}`
          : `\`/promote\` with no channel promotes into the default channel of ${pkg}, and it has none yet (it is in no channel): name one, like \`/promote stable\`.`,
      };
  }
  const known = ctx.config.channels.names;
  if (!known.includes(channel)) {
    return {
      kind: "refused",
      reason: `\`${channel}\` is not a channel of this repository; its channels are ${known.map((c) => `\`${c}\``).join(", ")} (config \`channels.names\`).`,
    };
  }
  const out = await promoteRevision(ctx.port, {
    package: pkg,
    revision: `v${revision}`,
    channel,
    author: ctx.bot.author,
  });
  if (out.kind === "refused") return { kind: "refused", reason: `Not promoted: ${out.message}` };
  await reconcileFanout(fanoutContextOf(ctx, ctx.installation), repoName(ctx));
  return { kind: "promoted", package: pkg, revision, channel };
};
