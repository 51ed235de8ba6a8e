import type { Parsed } from "../lifecycle/result.js";
import { parsed, rejected } from "../lifecycle/result.js";
import { parseRevisionTag } from "../lifecycle/revision-tag.js";

/** What `/update` moves the draft to: a published revision, the newest on a channel, or the newest. */
export type UpdateTarget =
  | { kind: "latest" }
  | { kind: "revision"; revision: number }
  | { kind: "channel"; channel: string };

/** `/update`'s arguments. */
export interface UpdateArgs {
  verb: "update";
  target: UpdateTarget;
}

/** Without a revision: the whole package; with one (`v2`, or its tag `basens/v2`): that revision alone. */
export interface ProposeDeleteArgs {
  verb: "propose-delete";
  package?: string;
  revision?: number;
}

/** `channel` absent: the package's default channel in the catalog. */
export interface PromoteArgs {
  verb: "promote";
  channel?: string;
}

export interface RolloutArgs {
  verb: "rollout";
  action: "resume" | "hold";
}

const REVISION = /^v([1-9][0-9]*)$/;
const CHANNEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** The parser of a verb that takes no arguments. */
export function noArgs<const V extends string>(verb: V): (args: readonly string[]) => Parsed<{ verb: V }> {
  return (args) =>
    args.length === 0 ? parsed({ verb }) : rejected(`/${verb} takes no arguments (got "${args.join(" ")}")`);
}

export function parseUpdateArgs(args: readonly string[]): Parsed<UpdateArgs> {
  if (args.length === 0) return parsed({ verb: "update", target: { kind: "latest" } });
  if (args.length > 1)
    return rejected(
      `/update takes one revision or channel, like \`/update v3\` or \`/update stable\` (got "${args.join(" ")}")`,
    );
  const arg = args[0] as string;
  const revision = REVISION.exec(arg);
  if (revision)
    return parsed({ verb: "update", target: { kind: "revision", revision: Number(revision[1]) } });
  if (CHANNEL.test(arg)) return parsed({ verb: "update", target: { kind: "channel", channel: arg } });
  return rejected(`/update takes a revision like \`v3\` or a channel like \`stable\`; "${arg}" is neither`);
}

/** `/propose-delete`: the whole package; `/propose-delete v2` or `basens/v2`: that published revision alone. */
export function parseProposeDeleteArgs(args: readonly string[]): Parsed<ProposeDeleteArgs> {
  if (args.length === 0) return parsed({ verb: "propose-delete" });
  const usage =
    "like `/propose-delete v2` (a revision of this pull request's package) or `/propose-delete basens/v2` (its tag)";
  if (args.length > 1)
    return rejected(`/propose-delete takes one revision, ${usage} (got "${args.join(" ")}")`);
  const word = args[0] as string;
  const bare = REVISION.exec(word);
  if (bare) return parsed({ verb: "propose-delete", revision: Number(bare[1]) });
  const tag = parseRevisionTag(word);
  if (tag.ok)
    return parsed({ verb: "propose-delete", package: tag.value.package, revision: tag.value.revision });
  return rejected(`/propose-delete takes a published revision, ${usage}; "${word}" is neither`);
}

export function parsePromoteArgs(args: readonly string[]): Parsed<PromoteArgs> {
  if (args.length === 0) return parsed({ verb: "promote" });
  if (args.length !== 1) return rejected(`/promote takes one channel (got "${args.join(" ")}")`);
  const channel = args[0] as string;
  if (!CHANNEL.test(channel))
    return rejected(`"${channel}" is not a channel name (lowercase letters, digits and '-')`);
  return parsed({ verb: "promote", channel });
}

export function parseRolloutArgs(args: readonly string[]): Parsed<RolloutArgs> {
  const [action, ...rest] = args;
  if ((action === "resume" || action === "hold") && rest.length === 0)
    return parsed({ verb: "rollout", action });
  return rejected(
    `/rollout takes \`resume\` or \`hold\`, like \`/rollout resume\`${args.length ? ` (got "${args.join(" ")}")` : ""}`,
  );
}
