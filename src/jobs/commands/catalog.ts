import type { DeprecationReference } from "../../catalog/index.js";
import type { DeprecateTarget } from "../../commands/catalog-args.js";
import type { PullRequest } from "../../github/port.js";
import { deprecateInCatalog, removeFromCatalog, skipRevision } from "../catalog/withdraw.js";
import type { CatalogWrite } from "../catalog/write.js";
import type { JobContext } from "../context.js";
import { packageOfPull, resolveRevision } from "./target.js";
import type { HandlerResult, VerbHandler } from "./types.js";

/**
 * `/skip`, `/remove` and `/deprecate`: catalog edits on branch `porchlight/catalog`, said on a proposal of
 * the package (`/skip` on the one that published the revision, or `/skip v2` on any) or in an issue with
 * the revision's tag (`/skip basens/v2`). Each is level-triggered: said again, it answers that the
 * catalog says so already and writes nothing.
 */
export const skip: VerbHandler<"skip"> = async (ctx, { pr, args }) => {
  const target = await resolveRevision(ctx, pr, args, "skip");
  if (!target.ok) return { kind: "refused", reason: target.reason };
  const { package: pkg, revision } = target.value;
  const out = await skipRevision(ctx.port, {
    package: pkg,
    revision: `v${revision}`,
    author: ctx.bot.author,
  });
  return answer(out, "skip", pkg, `v${revision}`);
};

export const remove: VerbHandler<"remove"> = async (ctx, { pr, args }) => {
  const target = await resolveRevision(ctx, pr, args, "remove");
  if (!target.ok) return { kind: "refused", reason: target.reason };
  const { package: pkg, revision } = target.value;
  const out = await removeFromCatalog(ctx.port, {
    package: pkg,
    revision: `v${revision}`,
    author: ctx.bot.author,
  });
  return answer(out, "remove", pkg, `v${revision}`);
};

export const deprecate: VerbHandler<"deprecate"> = async (ctx, { pr, args, actor }) => {
  const found = await deprecationOf(ctx, pr, args.target);
  if (!found.ok) return { kind: "refused", reason: found.reason };
  const { package: pkg, reference, what } = found.value;
  // The same comment gives the same message, so saying it again writes nothing.
  const message = args.message ?? `Deprecated by @${actor.login}.`;
  const out = await deprecateInCatalog(ctx.port, {
    package: pkg,
    reference,
    message,
    author: ctx.bot.author,
  });
  return answer(out, "deprecate", pkg, what, message);
};

async function deprecationOf(
  ctx: JobContext,
  pr: PullRequest | null,
  target: DeprecateTarget,
): Promise<
  | { ok: true; value: { package: string; reference: DeprecationReference; what: string } }
  | { ok: false; reason: string }
> {
  if (target.kind === "revision") {
    const r = await resolveRevision(ctx, pr, target, "deprecate");
    if (!r.ok) return r;
    const name = `v${r.value.revision}`;
    return {
      ok: true,
      value: { package: r.value.package, reference: { schema: "olm.bundle", name }, what: name },
    };
  }
  const pkg = packageOfPull(pr);
  if (!pkg) {
    return {
      ok: false,
      reason: `\`/deprecate ${target.kind === "channel" ? `channel ${target.channel}` : "package"}\` works on a proposal of the package, which names it; from anywhere else use \`porchlight catalog deprecate\`.`,
    };
  }
  return target.kind === "channel"
    ? {
        ok: true,
        value: {
          package: pkg,
          reference: { schema: "olm.channel", name: target.channel },
          what: `channel ${target.channel}`,
        },
      }
    : { ok: true, value: { package: pkg, reference: { schema: "olm.package" }, what: "(the package)" } };
}

function answer(
  out: CatalogWrite,
  verb: "skip" | "remove" | "deprecate",
  pkg: string,
  what: string,
  message?: string,
): HandlerResult {
  if (out.kind === "refused") return { kind: "refused", reason: `Not changed: ${out.message}` };
  return {
    kind: "cataloged",
    verb,
    package: pkg,
    what,
    changed: out.kind === "committed",
    ...(message !== undefined ? { message } : {}),
  };
}
