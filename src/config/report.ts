import type { CheckAnnotation, CheckOutput } from "../lifecycle/check-run.js";
import { type ConfigProblem, formatProblem } from "./problem.js";

/** The failing check run output for a configuration file that does not parse or breaks the schema. */
export function configCheckOutput(problems: readonly ConfigProblem[]): CheckOutput {
  const file = problems[0]?.file ?? ".github/porchlight.yml";
  const ref = problems[0]?.ref;
  const count = problems.length === 1 ? "1 problem" : `${problems.length} problems`;
  const lines = problems.map((p) => `- ${formatProblem(p)}`);
  return {
    title: `${file}: ${count}`,
    summary: [
      `porchlight could not use \`${file}\`${ref ? ` at \`${ref}\`` : ""}. Fix the ${problems.length === 1 ? "problem" : "problems"} below; until then porchlight does not act on this repository's proposals.`,
      "",
      ...lines,
    ].join("\n"),
    // An annotation can point only at a file of this repository, not at an organisation's or extended one.
    annotations: problems.filter((p) => !p.file.includes(":")).map(configAnnotation),
  };
}

function configAnnotation(p: ConfigProblem): CheckAnnotation {
  const a: CheckAnnotation = {
    path: p.file,
    start_line: p.line,
    end_line: p.endLine,
    annotation_level: "failure",
    title: p.field ? `porchlight config: ${p.field}` : "porchlight config",
    message: p.message,
  };
  if (p.line === p.endLine) {
    a.start_column = p.column;
    a.end_column = p.endColumn;
  }
  return a;
}
