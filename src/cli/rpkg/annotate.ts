import { changeMetadata } from "../../porch/metadata.js";
import { UsageError } from "../io.js";
import { parseMetadataChanges } from "./metadata-changes.js";
import { openVerbRepository, type Verb } from "./verb.js";

const ANNOTATE_USAGE = `porchlight rpkg annotate PACKAGE_REV_NAME KEY=VALUE... [KEY-]... [--overwrite]

Set (KEY=VALUE) or remove (KEY-) annotations of a package revision, as \`kubectl annotate
packagerevision\` does in Porch. They are the revision's own, not its package's: porchlight keeps them in
git, in the namespace's .porchlight repository (packagerevisions/NAME.yaml), and \`rpkg get\` shows them in
metadata.annotations. porch.kpt.dev/push-on-render-failure=true lets \`rpkg push\` push a draft whose
render fails.

Flags:
  --overwrite   replace an annotation that already has a value (refused otherwise, as kubectl refuses)
`;

const LABEL_USAGE = `porchlight rpkg label PACKAGE_REV_NAME KEY=VALUE... [KEY-]... [--overwrite]

Set (KEY=VALUE) or remove (KEY-) labels of a package revision, as \`kubectl label packagerevision\` does in
Porch. They are the revision's own, kept for life under its name in git, in the namespace's .porchlight
repository (packagerevisions/NAME.yaml); \`rpkg get\` shows them in metadata.labels, with --show-labels
and -L KEY, and selects by them with -l. kpt.dev/latest-revision is Porch's own label and cannot be set.

Flags:
  --overwrite   replace a label that already has a value (refused otherwise, as kubectl refuses)
`;

/** `rpkg annotate` and `rpkg label`: kubectl's verbs over the revision's metadata kept in git. */
function metadataVerb(kind: "label" | "annotation"): Verb {
  const [name, usage, done] =
    kind === "label" ? ["label", LABEL_USAGE, "labeled"] : ["annotate", ANNOTATE_USAGE, "annotated"];
  return {
    name,
    summary: `Set or remove ${kind}s of a package revision.`,
    usage,
    flags: { overwrite: "switch" },
    async run(args, env) {
      const [revName, ...rest] = args.positional;
      if (!revName || rest.length === 0)
        throw new UsageError(`rpkg ${name} takes PACKAGE_REV_NAME and KEY=VALUE or KEY-\n\n${usage}`);
      const changes = parseMetadataChanges(rest, kind, usage);
      const { name: full } = await changeMetadata(env, {
        repository: await openVerbRepository(name, args, env, undefined, true),
        name: revName,
        kind,
        changes,
        overwrite: args.switches.has("overwrite"),
      });
      env.io.stdout(`packagerevision.porch.kpt.dev/${full} ${done}\n`);
      return 0;
    },
  };
}

export const annotateVerb = metadataVerb("annotation");
export const labelVerb = metadataVerb("label");
