import { createDraft, newDraftBranch } from "../../porch/drafts.js";
import { PorchError } from "../../porch/errors.js";
import { initFiles } from "../../porch/init-files.js";
import { nameOf } from "../../porch/names.js";
import { UsageError } from "../io.js";
import { renderAsPorch } from "./render.js";
import { openVerbRepository, type Verb } from "./verb.js";

const USAGE = `porchlight rpkg init PACKAGE --repository=OWNER/REPO --workspace=W [flags]

Create a new package: a draft (branch drafts/PACKAGE/W) holding the files kpt pkg init writes.

Flags:
  --workspace W         workspace of the new revision (required)
  --description TEXT    short description of the package
  --keywords A,B        keywords of the package
  --site URL            page with information about the package
`;

export const initVerb: Verb = {
  name: "init",
  summary: "Create a new package as a draft.",
  usage: USAGE,
  flags: { workspace: "value", description: "value", keywords: "value", site: "value" },
  async run(args, env) {
    const [pkg, ...extra] = args.positional;
    if (!pkg || extra.length > 0) throw new UsageError(`rpkg init takes one PACKAGE\n\n${USAGE}`);
    const workspace = args.values.get("workspace");
    if (!workspace) throw new UsageError(`rpkg init needs --workspace\n\n${USAGE}`);
    const repo = await openVerbRepository("init", args, env);
    const state = await repo.load();
    const branch = newDraftBranch(repo, state, pkg, workspace);
    const dir = repo.packageDir(pkg);
    const existing = state.revisions.find((r) => r.package === pkg);
    if (existing || (await repo.conn.port.getFile(`${dir}/Kptfile`, repo.baseBranch)) !== undefined) {
      throw new PorchError(
        "already-exists",
        `Internal error occurred: package "${pkg}" already exists in repository "${repo.name}"`,
        `make a new revision of it with \`porchlight rpkg copy\` (${repo.full})`,
      );
    }
    const keywords = args.values
      .get("keywords")
      ?.split(",")
      .map((k) => k.trim())
      .filter(Boolean);
    const tree = initFiles({
      name: pkg.slice(pkg.lastIndexOf("/") + 1),
      description: args.values.get("description"),
      keywords,
      site: args.values.get("site"),
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
          ...(args.values.get("description") ? { description: args.values.get("description") } : {}),
          ...(keywords?.length ? { keywords } : {}),
          ...(args.values.get("site") ? { site: args.values.get("site") } : {}),
        },
      },
    });
    step.done();
    env.io.stdout(`${nameOf(repo, { package: pkg, workspace })} created\n`);
    return 0;
  },
};
