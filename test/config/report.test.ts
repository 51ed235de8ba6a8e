import { describe, expect, it } from "vitest";
import { configCheckOutput, parseRepoConfig } from "../../src/config/index.js";
import { codeBlock } from "../util/codeblock.js";

describe("the failing check run for a bad configuration", () => {
  it("quotes each problem with its line and annotates it in the file", () => {
    const parsed = parseRepoConfig(
      codeBlock`
        mergeMethod: ff
        guardrails:
          - name: policy
      `,
      { ref: "drafts/x" },
    );
    if (parsed.ok) throw new Error("expected problems");
    const output = configCheckOutput(parsed.problems);
    expect(output.title).toBe(".github/porchlight.yml: 2 problems");
    expect(output.summary).toContain("porchlight could not use `.github/porchlight.yml` at `drafts/x`");
    expect(output.summary).toContain(
      '- .github/porchlight.yml:1:14 (drafts/x): mergeMethod: must be one of merge, squash, rebase, not "ff"',
    );
    expect(output.annotations).toEqual([
      {
        path: ".github/porchlight.yml",
        start_line: 1,
        end_line: 1,
        start_column: 14,
        end_column: 16,
        annotation_level: "failure",
        title: "porchlight config: mergeMethod",
        message: 'must be one of merge, squash, rebase, not "ff"',
      },
      {
        path: ".github/porchlight.yml",
        start_line: 3,
        end_line: 3,
        start_column: 5,
        end_column: 18,
        annotation_level: "failure",
        title: "porchlight config: guardrails[0].image",
        message: "is missing (required: text)",
      },
    ]);
  });
});
