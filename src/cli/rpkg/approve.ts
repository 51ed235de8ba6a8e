import { approve, type CheckWait, DEFAULT_WAIT } from "../../porch/approve.js";
import { nameOf } from "../../porch/names.js";
import { requireReady } from "../../porch/readiness.js";
import { UsageError } from "../io.js";
import { forEachProposal, type Verb } from "./verb.js";

const USAGE = `porchlight rpkg approve PACKAGE_REV_NAME... --repository=OWNER/REPO [--timeout 5m]

Approve proposals: an approving review of the pull request's head, then the bot's publish job: merge
naming the reviewed head, and tag <package>/v<N> (the next free number). Synchronous, as porchctl's: it
first waits, at most --timeout (default 5m), for the bot's porchlight/render and porchlight/guardrails
checks of the head to complete. A deletion proposal, approved,
deletes that revision alone: a published revision's tag, or the .main revision's package from the
base branch. Publishing needs write permission and green porchlight/render and
porchlight/guardrails checks. The caller's approve is the approval, as Porch's (their own proposal's
too); where the repository's configuration sets requiredApprovals, approvals from people other than
the author are needed instead, and approve says how many are missing.
`;

export const approveVerb: Verb = {
  name: "approve",
  summary: "Approve proposals: publish them (or carry out a deletion).",
  usage: USAGE,
  flags: { timeout: "value" },
  run: (args, env) => {
    const wait = checkWait(args.values.get("timeout"));
    return forEachProposal(
      "approve",
      USAGE,
      args,
      env,
      (name, lifecycle, repo) =>
        `cannot approve ${name} with lifecycle '${lifecycle}': only a proposal is approved${lifecycle === "Draft" ? `; propose it first with \`porchlight rpkg propose ${name} --repository ${repo.full}\`` : ""}`,
      async (repo, rev) => {
        // porchctl's own check, before it asks the server (which, as Porch's, refuses no gate)
        await requireReady(repo, rev, nameOf(repo, rev));
        return `${(await approve(env, { repo, rev, wait })).name} approved`;
      },
    );
  },
};

/** `--timeout` as a duration (`90s`, `5m`, or seconds), or the default. */
export function checkWait(raw: string | undefined): CheckWait {
  if (raw === undefined) return DEFAULT_WAIT;
  const m = /^(\d+)(s|m)?$/.exec(raw);
  if (!m) throw new UsageError(`--timeout must be a duration such as 90s or 5m, not "${raw}"\n\n${USAGE}`);
  return { ...DEFAULT_WAIT, timeoutMs: Number(m[1]) * (m[2] === "m" ? 60_000 : 1000) };
}
