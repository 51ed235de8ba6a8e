import { skippedIn } from "../../catalog/index.js";
import { indexRefs } from "../../lifecycle/refs.js";
import { parseRevisionTag } from "../../lifecycle/revision-tag.js";
import { parseVariantBranch } from "../../lifecycle/variant-branch.js";
import { parseVariantPullRequestBody } from "../../variants/index.js";
import { readCatalog } from "../catalog/read.js";
import { EDITED_LABEL, withoutEditedLine, withTakeover } from "../fanout/edited.js";
import { reconcileFanout } from "../fanout/index.js";
import { managementFanoutContext } from "../fanout/jobs.js";
import { reachManagement } from "../fanout/management.js";
import { type Retarget, withRetarget } from "../fanout/retarget.js";
import type { VerbHandler } from "./types.js";

/**
 * `/update [revision|channel]` on a fan-out pull request: retarget it to that upstream revision, the head
 * of that channel, or (no argument) the newest published revision the catalog does not skip, until it is
 * merged or closed. The
 * choice is kept in the pull request body; fan-out then rewrites the pull request for it at once.
 */
export const update: VerbHandler<"update"> = async (ctx, { pr, args }) => {
  const branch = parseVariantBranch(pr.headRef);
  const marker = parseVariantPullRequestBody(pr.body);
  if (branch.ok && marker?.source) {
    return {
      kind: "refused",
      reason: marker.source.startsWith("oci://")
        ? `\`/update\` retargets a fan-out pull request to another published revision; #${pr.number} follows the OCI image \`${marker.source}\`. Move its tag (the next run proposes the new digest), or pin a digest in the variant's \`spec.upstream.oci\`.`
        : `\`/update\` retargets a fan-out pull request to another published revision; #${pr.number} follows the tarball \`${marker.source}\`. Publish new content there (the next run proposes it), or name another URL (and \`#sha256=\` pin) in the variant's \`spec.upstream.tarball\`.`,
    };
  }
  if (!branch.ok || !marker || marker.kind === "deletion" || marker.kind === "orphan" || !marker.upstream) {
    return {
      kind: "refused",
      reason: `\`/update\` retargets a fan-out update pull request (branch \`porchlight/variant/<package>/<variant>\`); #${pr.number} is not one.`,
    };
  }
  if (pr.state !== "open")
    return { kind: "refused", reason: `#${pr.number} is closed; nothing to retarget.` };
  const management = await reachManagement(ctx, marker.upstream.repo);
  if (!management)
    return {
      kind: "refused",
      reason: `The upstream repository ${marker.upstream.repo} is not reachable by this app's installations.`,
    };
  const up = management.repository;
  const upstreamPkg = marker.upstream.package;
  const upPort = management.installation.repo(up);
  const refs = await upPort.listRefs();
  const published = [...indexRefs(refs).tags.keys()]
    .map((t) => parseRevisionTag(t))
    .flatMap((p) => (p.ok && p.value.package === upstreamPkg ? [p.value.revision] : []))
    .sort((a, b) => a - b);
  // A revision the catalog skips is never offered again.
  const catalog = (await readCatalog(upPort, refs)).catalog;
  const pkg = catalog?.packages.find((p) => p.name === upstreamPkg);
  const skipped = new Set([
    ...(pkg?.channels.flatMap((c) => [...skippedIn(c)]) ?? []),
    ...(pkg?.removed ?? []),
  ]);
  let retarget: Retarget;
  const target = args.target;
  if (target.kind === "channel") retarget = { channel: target.channel };
  else {
    const offered = published.filter((p) => !skipped.has(`v${p}`));
    const n = target.kind === "revision" ? target.revision : offered[offered.length - 1];
    if (n !== undefined && skipped.has(`v${n}`)) {
      return {
        kind: "refused",
        reason: `${upstreamPkg} v${n} is ${pkg?.removed?.includes(`v${n}`) ? "removed from" : "skipped in"} the catalog and is not offered; choose another revision or a channel.`,
      };
    }
    if (n === undefined || !published.includes(n)) {
      return {
        kind: "refused",
        reason: `${upstreamPkg} has no published revision ${n === undefined ? "yet" : `v${n}`} (published: ${published.map((p) => `v${p}`).join(", ") || "none"}).`,
      };
    }
    retarget = { revision: `v${n}` };
  }
  // `/update` also hands a pull request someone else pushed to back to fan-out, from its head on.
  const body = withTakeover(withoutEditedLine(withRetarget(pr.body, retarget)), pr.headSha);
  await ctx.port.updatePull(pr.number, { body });
  if (pr.labels.includes(EDITED_LABEL)) await ctx.port.removeLabel(pr.number, EDITED_LABEL);
  const fanout = await managementFanoutContext(ctx, management);
  if (!fanout)
    return {
      kind: "refused",
      reason: `Retargeted, but the configuration of ${up.fullName} has problems, so its fan-out waits for its own next run (its checks name the problem).`,
    };
  const report = await reconcileFanout(fanout, up.fullName);
  const mine = report.actions.find((a) => a.variant === branch.value.variant);
  const failure = report.failures.find((f) => f.variant === branch.value.variant);
  if (failure) return { kind: "refused", reason: `Retargeted, but the update failed: ${failure.error}` };
  const reached = mine && "target" in mine && mine.target ? mine.target : undefined;
  if (!reached) {
    return {
      kind: "refused",
      reason: `Retargeted, but fan-out did not update #${pr.number}: ${mine?.reason ?? "the variant was not found"}.`,
    };
  }
  return { kind: "updated", package: branch.value.package, target, revision: Number(reached.slice(1)) };
};
