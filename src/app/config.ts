import { CONFIG_PATH } from "../config/parse.js";
import type { ConfigProblem } from "../config/problem.js";
import { configCheckOutput } from "../config/report.js";
import type { RepoPort } from "../github/port.js";
import { reportCheck } from "../jobs/check-report.js";
import { CHECK } from "../jobs/context.js";

/** The failing `porchlight/config` check quoting each problem at its file and line. */
export async function reportConfigProblems(
  port: RepoPort,
  sha: string,
  problems: ConfigProblem[],
): Promise<void> {
  const output = configCheckOutput(problems);
  await reportCheck(port, {
    name: CHECK.config,
    headSha: sha,
    conclusion: "failure",
    title: output.title,
    summary: output.summary,
    annotations: output.annotations,
  });
}

/** A green `porchlight/config` on the commit that fixed (or changed) the configuration. */
export async function reportConfigOk(port: RepoPort, sha: string): Promise<void> {
  await reportCheck(port, {
    name: CHECK.config,
    headSha: sha,
    conclusion: "success",
    title: `${CONFIG_PATH} is valid`,
    summary: "porchlight reads this configuration.",
  });
}
