import type { PackageRevision } from "../../lifecycle/index.js";
import { UsageError } from "../io.js";
import { openRevisionMetadata, registryAuthor } from "../repo-registry.js";
import { RpkgError } from "./errors.js";
import { nameOf } from "./names.js";
import type { Repository, RpkgEnv } from "./repository.js";
import { openRevision, type Verb } from "./verb.js";

const USAGE = `porchlight rpkg annotate PACKAGE_REV_NAME KEY=VALUE... [KEY-]... [--overwrite]

Set (KEY=VALUE) or remove (KEY-) annotations of a package revision, as \`kubectl annotate
packagerevision\` does in Porch. They are the revision's own, not its package's: porchlight keeps them in
git, in the namespace's .porchlight repository (packagerevisions/NAME.yaml). porch.kpt.dev/push-on-render-failure=true
lets \`rpkg push\` push a draft whose render fails.

Flags:
  --overwrite   replace an annotation that already has a value (refused otherwise, as kubectl refuses)
`;

function access(env: RpkgEnv) {
  return { token: env.token, apiUrl: env.apiUrl, cacheDir: env.cacheDir };
}

function store(env: RpkgEnv, repo: Repository) {
  return openRevisionMetadata(access(env), repo.namespace);
}

/** The annotations of revision `rev` (none where nothing was annotated). */
export async function revisionAnnotations(
  env: RpkgEnv,
  repo: Repository,
  rev: PackageRevision,
): Promise<Record<string, string>> {
  return (await store(env, repo).get(nameOf(repo, rev))).annotations;
}

export const annotateVerb: Verb = {
  name: "annotate",
  summary: "Set or remove annotations of a package revision.",
  usage: USAGE,
  flags: { overwrite: "switch" },
  async run(args, env) {
    const [name, ...changes] = args.positional;
    if (!name || changes.length === 0)
      throw new UsageError(`rpkg annotate takes PACKAGE_REV_NAME and KEY=VALUE or KEY-\n\n${USAGE}`);
    const set = new Map<string, string>();
    const remove: string[] = [];
    for (const c of changes) {
      const eq = c.indexOf("=");
      if (eq > 0) set.set(c.slice(0, eq), c.slice(eq + 1));
      else if (c.endsWith("-") && c.length > 1) remove.push(c.slice(0, -1));
      else throw new UsageError(`"${c}" is neither KEY=VALUE nor KEY-\n\n${USAGE}`);
    }
    const { repo, rev } = await openRevision("annotate", args, env, name);
    const full = nameOf(repo, rev);
    const author = await registryAuthor(access(env), env.io.env);
    await store(env, repo).update(
      full,
      (meta) => {
        const clash = [...set].filter(
          ([k, v]) => meta.annotations[k] !== undefined && meta.annotations[k] !== v,
        );
        if (clash.length > 0 && !args.switches.has("overwrite"))
          throw new RpkgError(
            `--overwrite is false but found the following declared annotation(s): ${clash.map(([k]) => `'${k}' already has a value (${meta.annotations[k]})`).join(", ")}`,
          );
        for (const [k, v] of set) meta.annotations[k] = v;
        for (const k of remove) delete meta.annotations[k];
      },
      author,
    );
    env.io.stdout(`packagerevision.porch.kpt.dev/${full} annotated\n`);
    return 0;
  },
};
