import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { tsSources } from "./house-counts.js";

const SRC = join(import.meta.dirname, "..", "src");

/**
 * Files outside src/kpt whose YAML parses are of other YAML (a function's config, a catalog, every
 * resource of a repository) in a function that names Kptfile only to pass the packages by, each with
 * its reason. A new entry is a decision: a Kptfile's text is read through src/kpt/kptfile.ts.
 */
const ALLOWED: Record<string, string> = {
  "jobs/check-proposal/resources.ts fileResources":
    "parses the package's .yaml files (a Kptfile has none) and skips a document of kind Kptfile among them",
  "render/fnconfig.ts functionConfigOf":
    "parses a function's config file; the Kptfile is named in the errors, as where configPath is written",
  "variants/objects.ts selectableObjects":
    "parses the repository's YAML files outside packages; the Kptfiles only say where the packages are",
};

/**
 * Where a file parses a Kptfile itself: a call of a YAML parser (`parse`, `parseDocument`,
 * `parseAllDocuments` of the `yaml` package, or a `parse…` of src/kpt/yaml/) inside a top-level
 * function (or the module's top level) whose text names a Kptfile — the word in a string or an
 * identifier (`"Kptfile"`, `KPTFILE_NAME`, `isKptfilePath`, `kptfileText`). The rule reads the whole
 * top-level function, so a parse in a callback of a function that fetched a Kptfile counts.
 */
function kptfileParses(
  file: string,
  text = readFileSync(file, "utf8"),
  allowed = new Set<string>(),
): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const parsers = new Set<string>();
  const namespaces = new Set<string>();
  for (const s of source.statements) {
    if (!ts.isImportDeclaration(s) || !ts.isStringLiteral(s.moduleSpecifier) || s.importClause?.isTypeOnly)
      continue;
    const from = s.moduleSpecifier.text;
    const fromYaml = from === "yaml";
    if (!fromYaml && !/(^|\/)kpt\/yaml\//.test(from)) continue;
    const bindings = s.importClause?.namedBindings;
    if (bindings && ts.isNamespaceImport(bindings)) namespaces.add(bindings.name.text);
    if (s.importClause?.name && fromYaml) namespaces.add(s.importClause.name.text);
    if (!bindings || !ts.isNamedImports(bindings)) continue;
    for (const e of bindings.elements) {
      const imported = (e.propertyName ?? e.name).text;
      if (
        fromYaml
          ? ["parse", "parseDocument", "parseAllDocuments"].includes(imported)
          : /^parse/.test(imported)
      )
        parsers.add(e.name.text);
    }
  }
  const isParse = (call: ts.CallExpression): boolean => {
    const callee = call.expression;
    if (ts.isIdentifier(callee)) return parsers.has(callee.text);
    return (
      ts.isPropertyAccessExpression(callee) &&
      ts.isIdentifier(callee.expression) &&
      namespaces.has(callee.expression.text) &&
      /^parse/.test(callee.name.text)
    );
  };
  const found: string[] = [];
  const check = (scope: ts.Node, name: string): void => {
    if (!/kptfile/i.test(scope.getText())) return;
    const visit = (node: ts.Node): void => {
      if (ts.isCallExpression(node) && isParse(node)) {
        const where = `${relative(SRC, file)} ${name}`;
        const { line } = source.getLineAndCharacterOfPosition(node.getStart());
        if (where in ALLOWED) allowed.add(where);
        else found.push(`${relative(SRC, file)}:${line + 1} (${name}): ${node.getText()}`);
      }
      ts.forEachChild(node, visit);
    };
    visit(scope);
  };
  for (const s of source.statements) {
    if (ts.isFunctionDeclaration(s)) check(s, s.name?.text ?? "default");
    else if (ts.isClassDeclaration(s))
      for (const m of s.members) check(m, `${s.name?.text ?? "class"}.${m.name?.getText() ?? "constructor"}`);
    else if (ts.isVariableStatement(s))
      for (const d of s.declarationList.declarations) check(d, d.name.getText());
    else if (ts.isExportAssignment(s) || ts.isExpressionStatement(s)) check(s, "top level");
  }
  return found;
}

describe("Kptfiles", () => {
  it("are read only through src/kpt (kptfile.ts: parseKptfile, readKptfileStruct, kptfileDocument, readKptfileFields)", () => {
    const allowed = new Set<string>();
    const found = tsSources(SRC, [join(SRC, "kpt")]).flatMap((f) => kptfileParses(f, undefined, allowed));
    expect(
      found,
      "read a Kptfile through src/kpt/kptfile.ts (extend it with what you need), or list the function in ALLOWED with why its parse is of no Kptfile",
    ).toEqual([]);
    expect(
      Object.keys(ALLOWED).filter((k) => !allowed.has(k)),
      "ALLOWED names a function that no longer parses YAML beside a Kptfile: remove it",
    ).toEqual([]);
  });

  it("finds a parse beside the word, through any import of a parser, and leaves other YAML alone", () => {
    const file = join(SRC, "jobs", "probe.ts");
    const own = [
      'import { parseDocument as pd } from "yaml";',
      'import * as YAML from "yaml";',
      'import { parseYamlFile } from "../kpt/yaml/yamlfile.js";',
      'export function lock(tree: Map<string, string>) { return pd(tree.get("Kptfile") ?? "").toJS(); }',
      "export const repo = (kptfileText: string) => YAML.parse(kptfileText).upstream;",
      "export class Reader { read(t: string) { return parseYamlFile(t, KPTFILE_NAME); } }",
    ].join("\n");
    expect(kptfileParses(file, own)).toEqual([
      'jobs/probe.ts:4 (lock): pd(tree.get("Kptfile") ?? "")',
      "jobs/probe.ts:5 (repo): YAML.parse(kptfileText)",
      "jobs/probe.ts:6 (Reader.read): parseYamlFile(t, KPTFILE_NAME)",
    ]);
    const other = [
      'import { parseDocument } from "yaml";',
      'import { isKptfilePath } from "../kpt/kptfile.js";',
      "export const config = (text: string) => parseDocument(text).toJS();",
      "export const packages = (paths: string[]) => paths.filter(isKptfilePath);",
    ].join("\n");
    expect(kptfileParses(file, other)).toEqual([]);
  });
});
