import type { Parsed } from "../lifecycle/result.js";
import { parsed, rejected } from "../lifecycle/result.js";
import { parseRevisionTag } from "../lifecycle/revision-tag.js";

/**
 * A published revision as a catalog command names it: `v2` (a revision of the pull request's package) or
 * its tag `basens/v2` (any package: the form to use in an issue). Both absent means "the revision this
 * pull request published" (skip, remove, deprecate) or "the one before the latest" (rollback).
 */
export interface RevisionArg {
  package?: string;
  revision?: number;
}

/** What `/deprecate` marks deprecated: a revision, a channel of the package, or the package itself. */
export type DeprecateTarget =
  | ({ kind: "revision" } & RevisionArg)
  | { kind: "channel"; channel: string }
  | { kind: "package" };

/** `/skip`, `/remove`, `/rollback`: the verb and at most one revision. */
export type RevisionVerbArgs<V extends "skip" | "remove" | "rollback"> = { verb: V } & RevisionArg;

export interface DeprecateArgs {
  verb: "deprecate";
  target: DeprecateTarget;
  message?: string;
}

const REVISION = /^v([1-9][0-9]*)$/;
const CHANNEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** `v2` or `basens/v2`, or why the word is neither. */
function parseRevisionArg(verb: string, word: string): Parsed<RevisionArg> {
  const bare = REVISION.exec(word);
  if (bare) return parsed({ revision: Number(bare[1]) });
  const tag = parseRevisionTag(word);
  if (tag.ok) return parsed({ package: tag.value.package, revision: tag.value.revision });
  return rejected(
    `/${verb} takes a published revision, like \`/${verb} v2\` on the package's pull request or \`/${verb} basens/v2\` (its tag) anywhere; "${word}" is neither`,
  );
}

/** `/skip`, `/remove`, `/rollback`: at most one revision. */
export function revisionVerb<V extends "skip" | "remove" | "rollback">(
  verb: V,
): (args: readonly string[]) => Parsed<RevisionVerbArgs<V>> {
  return (args) => {
    if (args.length > 1)
      return rejected(`/${verb} takes one revision, like \`/${verb} v2\` (got "${args.join(" ")}")`);
    if (args.length === 0) return parsed({ verb });
    const revision = parseRevisionArg(verb, args[0] as string);
    return revision.ok ? parsed({ verb, ...revision.value }) : revision;
  };
}

/**
 * `/deprecate [v2 | basens/v2 | channel beta | package] [message…]`: the target first, then the message
 * users of it are shown (the rest of the line).
 */
export function parseDeprecateArgs(args: readonly string[]): Parsed<DeprecateArgs> {
  const [first, ...rest] = args;
  const withMessage = (target: DeprecateTarget, words: readonly string[]): Parsed<DeprecateArgs> =>
    parsed({ verb: "deprecate", target, ...(words.length ? { message: words.join(" ") } : {}) });
  if (first === undefined) return withMessage({ kind: "revision" }, []);
  if (first === "channel") {
    const [channel, ...message] = rest;
    if (!channel || !CHANNEL.test(channel))
      return rejected(
        `/deprecate channel needs a channel name, like \`/deprecate channel beta use stable instead\`${channel ? `; "${channel}" is not one` : ""}`,
      );
    return withMessage({ kind: "channel", channel }, message);
  }
  if (first === "package") return withMessage({ kind: "package" }, rest);
  const revision = parseRevisionArg("deprecate", first);
  if (!revision.ok)
    return rejected(
      `/deprecate takes a revision (\`v2\`, or its tag \`basens/v2\`), \`channel <name>\` or \`package\`, then the message for its users; "${first}" is none of these`,
    );
  return withMessage({ kind: "revision", ...revision.value }, rest);
}
