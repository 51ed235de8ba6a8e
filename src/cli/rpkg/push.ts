import { existsSync, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { type FileTree, readTree } from "../../kpt/tree.js";
import { PorchError } from "../../porch/errors.js";
import { push } from "../../porch/push.js";
import type { PorchStep } from "../../porch/render.js";
import { REVISION_METADATA_FILE } from "../../porch/resources.js";
import { resultLine } from "../../render/results.js";
import { UsageError } from "../io.js";
import { openVerbRepository, type Verb } from "./verb.js";

const USAGE = `porchlight rpkg push PACKAGE_REV_NAME [DIR|-] --repository=OWNER/REPO

Replace a draft's files with those in DIR, or with a ResourceList read from stdin ('-', the default).
With a ResourceList, files it cannot carry (README.md and other non-YAML files) keep their content.
If DIR came from \`rpkg pull\`, the push is refused when the draft changed since: pull again.
`;

export const pushVerb: Verb = {
  name: "push",
  summary: "Replace a draft's files from a directory or a ResourceList on stdin.",
  usage: USAGE,
  flags: {},
  async run(args, env) {
    const [name, source = "-", ...extra] = args.positional;
    if (!name || extra.length > 0)
      throw new UsageError(`rpkg push takes PACKAGE_REV_NAME [DIR|-]\n\n${USAGE}`);
    /** The files of DIR (a ResourceList from stdin becomes files once the draft is read). */
    let fromDir: FileTree = new Map();
    /** The `.KptRevisionMetadata` of a pulled folder, refreshed after the push. */
    let pulledFrom: string | undefined;
    let list: string | undefined;
    if (source === "-") {
      list = await env.io.readStdin();
    } else {
      const dir = resolve(env.io.cwd, source);
      if (!existsSync(dir) || !statSync(dir).isDirectory()) {
        throw new PorchError(
          "bad-request",
          `${source} is not a directory; push a package directory, or '-' for a ResourceList on stdin`,
        );
      }
      fromDir = await readTree(dir);
      if (fromDir.has(REVISION_METADATA_FILE)) pulledFrom = join(dir, REVISION_METADATA_FILE);
    }
    const { name: pushed } = await push(env, {
      repository: await openVerbRepository("push", args, env, undefined, true),
      name,
      files: list === undefined ? { tree: fromDir } : { resourceList: list, source: "stdin" },
      onRender: (steps) => env.io.stderr(porchRenderLines(steps)),
      // the folder now holds what the draft is at: the next push from it goes on top of this commit
      onPushed: (meta) => pulledFrom && writeFileSync(pulledFrom, meta),
    });
    env.io.stdout(`${pushed} pushed\n`);
    return 0;
  },
};

/** What porchctl push prints on stderr of the render it caused: each function run, and its results. */
function porchRenderLines(steps: readonly PorchStep[]): string {
  let out = "";
  for (const step of steps) {
    out += `[RUNNING] ${JSON.stringify(step.image)} \n`;
    if (step.results.length > 0)
      out += `[Results]: ${step.results.map((r) => resultLine(r).replaceAll("\n", " ").trim()).join(", ")}\n`;
  }
  return out;
}
