import { formatRevisionTag, indexRefs, parseRevisionTag } from "../../lifecycle/index.js";
import { isStrategy, mergePackage, upstreamOf } from "../../merge/index.js";
import { UsageError } from "../io.js";
import { intFlag } from "./args.js";
import { createDraft, newDraftBranch } from "./drafts.js";
import { RpkgError } from "./errors.js";
import { nameOf } from "./names.js";
import { openRepository, type Repository, type RpkgEnv } from "./repository.js";
import { repositoryUpstream, sameServerRepository } from "./upstream.js";
import { openRevision, type Verb } from "./verb.js";

const USAGE = `porchlight rpkg upgrade PACKAGE_REV_NAME --workspace=W [--revision=N] --repository=OWNER/REPO

Create a new draft (branch drafts/PACKAGE/W) of a published downstream package, updated to revision N
of its upstream package (default: the latest) with kpt's 3-way merge: upstream changes since the
revision it was cloned from (or last upgraded to) merged into the downstream package's own changes.
A merge with conflicts pushes nothing and lists them.

Flags:
  --workspace W   workspace of the new revision (required)
  --revision N    the upstream revision to upgrade to (default: its latest)
`;

export const upgradeVerb: Verb = {
  name: "upgrade",
  summary: "New draft of a downstream package, 3-way merged to a newer upstream revision.",
  usage: USAGE,
  flags: { workspace: "value", revision: "value" },
  async run(args, env) {
    const [name, ...extra] = args.positional;
    if (!name || extra.length > 0)
      throw new UsageError(`rpkg upgrade takes one PACKAGE_REV_NAME\n\n${USAGE}`);
    const workspace = args.values.get("workspace");
    if (!workspace) throw new UsageError(`rpkg upgrade needs --workspace\n\n${USAGE}`);
    const wanted = intFlag(args, "revision", USAGE);
    const { repo, state, rev } = await openRevision("upgrade", args, env, name);
    if (rev.lifecycle !== "Published") {
      throw new RpkgError(
        `to upgrade a package, the revision must be Published, not ${rev.lifecycle}: ${name} in ${repo.full}`,
      );
    }
    const branch = newDraftBranch(repo, state, rev.package, workspace);
    const dir = repo.packageDir(rev.package);
    const step = env.progress.step(`Upgrading ${nameOf(repo, rev)}`);
    const { tree: local } = await repo.conn.port.readTree(rev.sha, dir);
    const up = upstreamOf(local, `${dir} (${name})`);
    const upstream = await upstreamRepository(env, repo, up.repo, name);
    const upstreamPkg = up.directory.replace(/^\/+|\/+$/g, "");
    const target = targetTag(upstream, upstreamPkg, wanted, await upstream.conn.port.listRefs());
    const source = repositoryUpstream(upstream);
    const { commit, resolvedRef } = await source.resolve(target, up.directory);
    const updated = await source.read(commit, up.directory);
    const original = up.lockCommit ? await source.read(up.lockCommit, up.directory) : new Map();
    const recorded = up.strategy ?? "resource-merge";
    const result = mergePackage({
      original,
      updated,
      local,
      strategy: isStrategy(recorded) ? recorded : "resource-merge",
      lock: { repo: up.repo, directory: up.directory, ref: target, resolvedRef, commit },
    });
    if (result.conflicts.length > 0) {
      step.fail("conflicts");
      const list = result.conflicts.map(
        (c) => `  ${dir}/${c.file}:${c.lines[0]}-${c.lines[1]}: ${c.message}`,
      );
      throw new RpkgError(
        `upgrading ${name} to ${target} conflicts with its local changes; nothing was pushed:\n${list.join("\n")}\nResolve them in a draft (\`porchlight rpkg copy\`, then \`pull\`/\`push\`) and try again`,
      );
    }
    await createDraft(repo, state, {
      branch,
      pkg: rev.package,
      tree: result.tree,
      message: `Upgrade ${rev.package} to ${upstream.full} ${target} (${commit.slice(0, 12)})`,
    });
    step.done(target);
    env.io.stdout(`${nameOf(repo, rev)} upgraded to ${nameOf(repo, { package: rev.package, workspace })}\n`);
    return 0;
  },
};

/** The porchlight repository an upstream URL names, reached with the same token and API. */
async function upstreamRepository(
  env: RpkgEnv,
  repo: Repository,
  url: string,
  name: string,
): Promise<Repository> {
  if (url === repo.conn.info.cloneUrl) return repo;
  const full = sameServerRepository(url, repo.conn.info.cloneUrl);
  if (!full) {
    throw new RpkgError(
      `${name} was cloned from ${url}, which is not a repository on this server; rpkg upgrade follows package revisions of GitHub repositories: update it with \`porchlight pkg update\` instead`,
    );
  }
  return openRepository(env, full, "upgrade");
}

/** The upstream tag to upgrade to: `<package>/v<N>`, or the package's latest. */
function targetTag(
  upstream: Repository,
  pkg: string,
  wanted: number | undefined,
  refs: Parameters<typeof indexRefs>[0],
): string {
  let latest = 0;
  for (const tag of indexRefs(refs).tags.keys()) {
    const t = parseRevisionTag(tag);
    if (t.ok && t.value.package === pkg) {
      if (wanted !== undefined && t.value.revision === wanted) return tag;
      latest = Math.max(latest, t.value.revision);
    }
  }
  if (wanted !== undefined) {
    throw new RpkgError(
      `revision ${wanted} does not exist for package ${pkg} in ${upstream.full}${latest ? ` (its latest is v${latest})` : ""}`,
    );
  }
  if (latest === 0) throw new RpkgError(`${pkg} has no published revision in ${upstream.full} to upgrade to`);
  return formatRevisionTag({ package: pkg, revision: latest });
}
