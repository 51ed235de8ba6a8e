import { changedPackages } from "../action/changed-packages.js";
import { runAction } from "../action/run.js";
import { type CliCommand, type CliIO, UsageError } from "./io.js";
import { parseCommandArgs } from "./options.js";

const USAGE = `porchlight action — run porchlight inside a GitHub Actions workflow (see docs/actions.md)

Usage:
  porchlight action
      Handle the event that started this run, as the hosted app handles its webhook:
      push, pull_request, issue_comment and pull_request_review; schedule and workflow_dispatch
      reconcile the repository. Reads GITHUB_EVENT_NAME, GITHUB_EVENT_PATH, GITHUB_TOKEN (or
      INPUT_TOKEN), GITHUB_API_URL and GITHUB_REPOSITORY. Exits 1, with an ::error:: annotation
      for each failure, when a job fails.
  porchlight action reconcile
      Reconcile this repository whatever the event: every draft rendered, every proposal checked.
  porchlight action packages --base REF [--head REF]
      Print the packages (outermost package directories) changed between the merge base of REF
      and HEAD (or --head), one per line: what the render check renders.

Environment:
  PORCHLIGHT_ALLOW_EXEC=1        allow exec functions (off by default; never for forks' PRs)
  PORCHLIGHT_ALLOW_CONTAINER=1   allow container functions (off by default)
  PORCHLIGHT_BOT_LOGIN           the token's user when it is not GITHUB_TOKEN (github-actions[bot])
`;

const OPTIONS = {
  base: { type: "string" },
  head: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

/** `porchlight action [reconcile | packages]`. */
export const actionCommand: CliCommand = async (args: string[], io: CliIO) => {
  const { values, positionals } = parseCommandArgs("action", args, OPTIONS, USAGE);
  if (values.help) {
    io.stdout(USAGE);
    return 0;
  }
  const [sub, ...extra] = positionals;
  if (extra.length > 0 || (sub !== undefined && sub !== "reconcile" && sub !== "packages"))
    throw new UsageError(`porchlight action: unknown argument "${positionals.join(" ")}"\n\n${USAGE}`);
  if (sub === "packages") return packages(values, io);
  if (values.base !== undefined || values.head !== undefined)
    throw new UsageError(
      `porchlight action: --base and --head belong to 'porchlight action packages'\n\n${USAGE}`,
    );
  return runAction({ env: io.env, stdout: io.stdout, mode: sub === "reconcile" ? "reconcile" : "auto" });
};

async function packages(values: { base?: string; head?: string }, io: CliIO): Promise<number> {
  if (!values.base) throw new UsageError(`porchlight action packages: --base REF is required\n\n${USAGE}`);
  let dirs: string[];
  try {
    dirs = await changedPackages(io.cwd, values.base, values.head ?? "HEAD");
  } catch (e) {
    io.stderr(
      `porchlight action packages: cannot compare ${values.base} with ${values.head ?? "HEAD"} in ${io.cwd}: ${(e as Error).message}\n` +
        "Check out the repository with its history (actions/checkout with fetch-depth: 0).\n",
    );
    return 1;
  }
  for (const d of dirs) io.stdout(`${d}\n`);
  return 0;
}
