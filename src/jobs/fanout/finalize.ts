import { subtree } from "../../kpt/tree.js";
import {
  type FanoutAction,
  PACKAGE_VARIANT_FINALIZER,
  releaseFinalizer,
  VARIANTS_DIR,
  VARIANTS_README,
} from "../../variants/index.js";
import type { FanoutContext } from "./context.js";
import type { FanoutState } from "./read-state.js";

/**
 * After a run, porchlight's finalizer comes off each PackageVariant being deleted whose downstreams this
 * run acted on, as Porch's controller removes it once it has deleted or orphaned them: the variant had no
 * step skipped or failed (a removal waits while the variant files have problems, or for a rollout's
 * wave). The last finalizer gone, the document leaves its file — the object is gone, as the API server
 * removes it. One commit to the management repository's default branch, as the bot; a branch that moved
 * meanwhile, or a push refused, leaves the finalizers for the next run. Returns the variants released.
 */
export async function releaseFinalizers(
  ctx: FanoutContext,
  state: FanoutState,
  actions: readonly FanoutAction[],
  failures: readonly { variant: string }[],
): Promise<string[]> {
  const waiting = (name: string) =>
    actions.some((a) => a.variant === name && a.kind === "skip") || failures.some((f) => f.variant === name);
  const due = state.terminating.filter(
    (t) =>
      t.kind === "PackageVariant" && t.finalizers.includes(PACKAGE_VARIANT_FINALIZER) && !waiting(t.name),
  );
  const snap = state.management;
  if (due.length === 0 || snap.baseSha === undefined) return [];
  const files = subtree(snap.tree, VARIANTS_DIR);
  const released: string[] = [];
  for (const t of due) {
    const path = t.file.slice(VARIANTS_DIR.length + 1);
    const text = files.get(path)?.toString("utf8");
    if (text === undefined) continue;
    const next = releaseFinalizer(text, t.kind, t.name, PACKAGE_VARIANT_FINALIZER);
    if (!next.changed) continue;
    if (next.text === undefined) files.delete(path);
    else files.set(path, Buffer.from(next.text));
    released.push(t.name);
  }
  if (released.length === 0) return [];
  // the directory stays, so fan-out still runs here for the removals it proposed
  if (files.size === 0) files.set("README.md", Buffer.from(VARIANTS_README));
  try {
    const pushed = await snap.port.commitTree({
      branch: snap.repository.defaultBranch,
      parent: snap.baseSha,
      dir: VARIANTS_DIR,
      tree: files,
      message: `Release ${released.map((n) => `PackageVariant ${n}`).join(", ")}: fan-out acted on ${released.length === 1 ? "its" : "their"} downstreams by the deletionPolicy\n\nporchlight removed its finalizer ${PACKAGE_VARIANT_FINALIZER}.`,
      author: ctx.bot.author,
      kpt: null,
    });
    if (!pushed.ok && pushed.reason === "non-fast-forward") {
      ctx.log.info({ variants: released }, "variant files moved; finalizers are released by the next run");
      return [];
    }
  } catch (err) {
    ctx.log.warn(
      { err, variants: released, management: snap.repository.fullName },
      "could not remove porchlight's finalizer from the variant files; the objects stay until it is removed",
    );
    return [];
  }
  ctx.log.info({ variants: released }, "porchlight's finalizer removed from variants being deleted");
  return released;
}
