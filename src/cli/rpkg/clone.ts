import { sourceKind } from "../../kpt/source-ref.js";
import { isStrategy, STRATEGIES } from "../../merge/index.js";
import { clone, isGitSource } from "../../porch/clone.js";
import { UsageError } from "../io.js";
import { rpkgUpstreams } from "./egress.js";
import { openVerbRepository, type Verb } from "./verb.js";

export { isGitSource };

const USAGE = `porchlight rpkg clone SOURCE TARGET_PACKAGE --repository=OWNER/REPO [flags]

Create a new package TARGET_PACKAGE as a draft (branch drafts/TARGET_PACKAGE/W) cloned from SOURCE, as
kpt pkg get does: the Kptfile records the upstream and the commit (upstreamLock), so \`rpkg upgrade\`
can later merge newer upstream revisions into it.

SOURCE is a package revision (as \`rpkg get\` names it, or OWNER/REPO:NAME for another repository),
a git repository's https URL with --directory and --ref, an OCI image
oci://REGISTRY/REPO[//DIR][:TAG|@sha256:…] or a tarball https://…/PKG.tar.gz[//DIR][#sha256=…]
(docs/sources.md). What SOURCE names keeps to the egress policy: https to a public address, this
GitHub, or what PORCHLIGHT_EGRESS_ALLOW allows; no local path or file://.

Flags:
  --workspace W      workspace of the new revision (default v1)
  --directory DIR    the package's directory in a git SOURCE (ignored for a package revision, as porchctl does)
  --ref REF          branch, tag or commit of a git SOURCE (default: its default branch; ignored for a revision)
  --strategy S       update strategy recorded for upgrades: ${STRATEGIES.join(", ")} (default resource-merge)
`;

export const cloneVerb: Verb = {
  name: "clone",
  summary: "Create a new package cloned from a package revision or a git repository.",
  usage: USAGE,
  // --secret-ref: porchctl's upstream credentials, accepted and not used (the caller's token reads)
  flags: { workspace: "value", directory: "value", ref: "value", strategy: "value", "secret-ref": "value" },
  async run(args, env) {
    const [source, target, ...extra] = args.positional;
    if (!source || !target || extra.length > 0) {
      throw new UsageError(`rpkg clone takes SOURCE and TARGET_PACKAGE\n\n${USAGE}`);
    }
    const strategy = args.values.get("strategy");
    if (strategy !== undefined && !isStrategy(strategy)) {
      throw new UsageError(`unknown --strategy "${strategy}"; known: ${STRATEGIES.join(", ")}\n\n${USAGE}`);
    }
    const located = args.values.has("directory") || args.values.has("ref");
    if (located && sourceKind(source)) {
      throw new UsageError(
        `an OCI or tarball SOURCE names its directory and version itself (//DIR, :TAG, @sha256:…)\n\n${USAGE}`,
      );
    }
    // porchctl ignores them for a package revision, which names its directory and ref itself
    if (located && !isGitSource(source) && env.verbose)
      env.io.stderr(`--directory and --ref apply to a git SOURCE only: ignored for ${source}\n`);
    const { name } = await clone(
      { ...env, upstreams: rpkgUpstreams(env) },
      {
        repository: await openVerbRepository("clone", args, env),
        source,
        package: target,
        workspace: args.values.get("workspace"),
        directory: args.values.get("directory"),
        ref: args.values.get("ref"),
        strategy,
      },
    );
    env.io.stdout(`${name} created\n`);
    return 0;
  },
};
