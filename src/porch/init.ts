import { createDraft, newDraftBranch } from "./drafts.js";
import { PorchError } from "./errors.js";
import { initFiles } from "./init-files.js";
import { nameOf } from "./names.js";
import { repositoryOf } from "./open.js";
import { renderAsPorch } from "./render.js";
import type { Repository } from "./repository.js";
import type { OpEnv } from "./steps.js";

/** What `init` makes: a new package's first draft, with what Porch's init task records. */
export interface InitArgs {
  /** The repository: its registered name or OWNER/REPO, or one already opened. */
  repository: string | Repository;
  package: string;
  workspace: string;
  description?: string | undefined;
  keywords?: readonly string[] | undefined;
  site?: string | undefined;
  /**
   * A new revision of a package that exists is made too, as Porch's server makes one (its engine checks
   * only that the workspace is new); porchctl, and so rpkg, refuse it before asking (`copy` makes the next
   * revision), which is the default here.
   */
  ofExisting?: boolean;
}

/**
 * Creates a new package as Porch's init task does: a draft (branch drafts/PACKAGE/WORKSPACE) holding the
 * files `kpt pkg init` writes, rendered. A package that exists (a revision of it, or its Kptfile on the
 * base branch) is refused: its next revision is a copy. Answers the new revision's name.
 */
export async function init(env: OpEnv, args: InitArgs): Promise<{ name: string }> {
  const { package: pkg, workspace } = args;
  const repo = await repositoryOf(env, args.repository, "init");
  const state = await repo.load();
  const branch = newDraftBranch(repo, state, pkg, workspace);
  const dir = repo.packageDir(pkg);
  const existing = state.revisions.find((r) => r.package === pkg);
  if (args.ofExisting) {
    // Porch's ensureUniqueWorkspaceName: the name REPOSITORY.PACKAGE.WORKSPACE is the revision's for life
    if (state.revisions.some((r) => r.package === pkg && r.workspace === workspace))
      throw new PorchError(
        "already-exists",
        `package revision workspaceNames must be unique; package revision with name ${pkg} in repo ${repo.name} with workspaceName ${workspace} already exists`,
      );
  } else if (existing || (await repo.conn.port.getFile(`${dir}/Kptfile`, repo.baseBranch)) !== undefined) {
    throw new PorchError(
      "already-exists",
      `Internal error occurred: package "${pkg}" already exists in repository "${repo.name}"`,
      `make a new revision of it with \`porchlight rpkg copy\` (${repo.full})`,
    );
  }
  const keywords = args.keywords?.length ? [...args.keywords] : undefined;
  const tree = initFiles({
    name: pkg.slice(pkg.lastIndexOf("/") + 1),
    description: args.description,
    keywords,
    site: args.site,
  });
  const step = env.progress.step(`Creating ${branch} in ${repo.full}`);
  // Porch renders the new package, which records the Rendered condition in its Kptfile
  const rendered = await renderAsPorch(tree, repo.config.functions.runtimes);
  await createDraft(repo, state, {
    branch,
    pkg,
    tree: rendered.tree,
    message: `Init package ${pkg} (workspace ${workspace})`,
    task: {
      type: "init",
      init: {
        ...(args.description ? { description: args.description } : {}),
        ...(keywords ? { keywords } : {}),
        ...(args.site ? { site: args.site } : {}),
      },
    },
  });
  step.done();
  return { name: nameOf(repo, { package: pkg, workspace }) };
}
