import { describe, expect, it } from "vitest";
import { executeGoTemplate, parseGoTemplate } from "../../src/cli/go-template.js";
import { formatObjects, parseObjectFormat } from "../../src/cli/kubectl-output.js";

const list = {
  kind: "List",
  items: [
    {
      metadata: { name: "a", labels: { "kpt.dev/label": "foo" } },
      spec: { revision: 1, lifecycle: "Published" },
    },
    { metadata: { name: "b" }, spec: { lifecycle: "Draft" } },
  ],
};

describe("go-template, the subset kubectl's scripts use", () => {
  it.each([
    ["{{.kind}}", "List"],
    ['{{range .items}}{{.metadata.name}}{{"\\n"}}{{end}}', "a\nb\n"],
    [
      "{{range .items}}{{if .spec.revision}}{{.metadata.name}}={{.spec.revision}} {{else}}{{.metadata.name}}:draft {{end}}{{end}}",
      "a=1 b:draft ",
    ],
    ['{{range .items}}{{printf "%s/%d;" .metadata.name .spec.revision}}{{end}}', "a/1;b/%!d(MISSING);"],
    ['{{range .items}}{{index .metadata.labels "kpt.dev/label"}},{{end}}', "foo,<no value>,"],
    ["{{len .items}}", "2"],
    ['{{range .items}}{{if eq .spec.lifecycle "Draft"}}{{.metadata.name}}{{end}}{{end}}', "b"],
    ["{{range .items -}}\n  {{ .metadata.name }}\n{{- end}}", "ab"],
    ["{{with .missing}}x{{else}}none{{end}}", "none"],
    ["{{.items | len}}", "2"],
    [
      '{{index .items 0 | printf "%v"}}',
      "map[metadata:map[labels:map[kpt.dev/label:foo] name:a] spec:map[lifecycle:Published revision:1]]",
    ],
  ])("%s", (template, out) => {
    expect(executeGoTemplate(parseGoTemplate(template), list)).toBe(out);
  });

  it.each([
    ["{{range .items}}", "has no {{end}}"],
    ["{{end}}", "unexpected {{end}}"],
    ['{{template "x"}}', "is not in the subset porchlight reads"],
    ["{{lower .kind}}", '"lower" is not a function porchlight knows'],
    ["{{.kind", "unclosed action"],
  ])("refuses %s", (template, message) => {
    expect(() => parseGoTemplate(template)).toThrow(message);
  });
});

describe("jsonpath templates with {range} and quoted text", () => {
  const run = (t: string) => {
    const f = parseObjectFormat(`jsonpath=${t}`);
    if (!f) throw new Error("no format");
    return formatObjects(f, list.items, { list });
  };
  it.each([
    ['{range .items[*]}{.metadata.name}{"\\t"}{.spec.lifecycle}{"\\n"}{end}', "a\tPublished\nb\tDraft\n"],
    ["{range .items[*]}[{.metadata.name}]{end}", "[a][b]"],
    ["{.items[*].metadata.name}", "a b"],
  ])("%s", (template, out) => {
    expect(run(template)).toBe(out);
  });
  it("refuses a range without an end, and an end without a range", () => {
    expect(() => run("{range .items[*]}{.x}")).toThrow("has no {end}");
    expect(() => run("{.x}{end}")).toThrow("{end} without a {range");
  });
});
