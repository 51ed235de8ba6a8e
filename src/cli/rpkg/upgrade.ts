import { PorchError } from "../../porch/errors.js";
import { checkStrategy, upgrade } from "../../porch/upgrade.js";
import { UsageError } from "../io.js";
import { intFlag } from "./args.js";
import { discoverUpgrades } from "./discover.js";
import { rpkgUpstreams } from "./egress.js";
import { openVerbRepository, type Verb } from "./verb.js";

const USAGE = `porchlight rpkg upgrade PACKAGE_REV_NAME --workspace=W [--revision=N | --ref=REF] --repository=OWNER/REPO

Create a new draft (branch drafts/PACKAGE/W) of a downstream package revision (published, or a draft
as it is now, as Porch's upgrade task takes either), updated to revision N
of its upstream package (default: the latest) with kpt's 3-way merge: upstream changes since the
revision it was cloned from (or last upgraded to) merged into the downstream package's own changes.
A merge with conflicts pushes nothing and lists them.

A package cloned from an OCI image or a tarball (docs/sources.md) is upgraded to what its source holds
now: the tag it was cloned from, resolved again (a floating tag such as :stable moves), or --ref: another
tag or sha256:… digest of the image, or another tarball URL (https://…/pkg-v2.tar.gz[#sha256=…]).

With --discover=upstream [PACKAGE_REV_NAME...], list which newer upstream revisions each downstream
revision could be upgraded to; with --discover=downstream [UPSTREAM_REV_NAME...], list the downstream
revisions each upstream revision would upgrade (porchctl's tables). Nothing is changed.

Flags:
  --workspace W   workspace of the new revision (required)
  --discover D    upstream or downstream: list available upgrades instead of making one
  --strategy S    resource-merge, fast-forward, force-delete-replace or copy-merge (default: the
                  Kptfile's updateStrategy, else resource-merge)
  --revision N    the upstream revision to upgrade to (default: its latest; -1, the upstream's .main
                  placeholder, is refused as Porch refuses it)
  --ref REF       for an OCI or tarball upstream: the tag, digest or tarball URL to upgrade to
`;

export const upgradeVerb: Verb = {
  name: "upgrade",
  summary: "New draft of a downstream package, 3-way merged to a newer upstream revision.",
  usage: USAGE,
  flags: { workspace: "value", revision: "value", ref: "value", discover: "value", strategy: "value" },
  async run(args, env) {
    const discover = args.values.get("discover");
    if (discover !== undefined) return discoverUpgrades(discover, args, env);
    const strategy = checkStrategy(args.values.get("strategy"));
    const [name, ...extra] = args.positional;
    if (!name || extra.length > 0)
      throw new UsageError(`rpkg upgrade takes one PACKAGE_REV_NAME\n\n${USAGE}`);
    const workspace = args.values.get("workspace");
    if (!workspace) throw new UsageError(`rpkg upgrade needs --workspace\n\n${USAGE}`);
    // -1 names the upstream's `.main`, a placeholder (refused by the upgrade, naming it); other negatives, porchctl's refusal
    const placeholderTarget = /^-[0-9]+$/.test(args.values.get("revision") ?? "");
    if (placeholderTarget && args.values.get("revision") !== "-1")
      throw new PorchError("bad-request", "revision must be positive (and not main)");
    const revision = placeholderTarget ? -1 : intFlag(args, "revision", USAGE);
    const repository = await openVerbRepository("upgrade", args, env, undefined, true);
    const done = await upgrade(
      { ...env, upstreams: rpkgUpstreams(env) },
      {
        repository,
        name,
        workspace,
        revision,
        ref: args.values.get("ref"),
        strategy,
      },
    ).catch((e: unknown) => {
      // a flag that does not apply to the revision's upstream: the usage error, with the usage
      throw e instanceof PorchError && e.more.usage ? new UsageError(`${e.message}\n\n${USAGE}`) : e;
    });
    env.io.stdout(
      done.name === undefined
        ? `${done.from} is up to date with its upstream; no draft created\n`
        : `${done.from} upgraded to ${done.name}\n`,
    );
    return 0;
  },
};
