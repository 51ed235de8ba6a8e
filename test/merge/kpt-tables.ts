import { execFileSync } from "node:child_process";
import type { Triple } from "./kpt-oracle.js";

/**
 * kpt's merge tables — the table-driven cases of kpt's own merge tests and of the kyaml merge3 tests
 * kpt's resource merge runs on — read from a kpt and a kustomize git repository (`git show TAG:PATH`,
 * nothing of them is kept in the project) and turned into `pkg update` cases: the case's `origin` is the
 * upstream package at v1, `update` at v2, and `local` replaces the fetched file before the update.
 * Expectations are not taken from the tables: each case is run by kpt and by porchlight and compared.
 */

export interface TableCase {
  /** `repository:path` of the test file, and the case's name in it. */
  source: string;
  name: string;
  origin: string;
  update: string;
  local: string;
  /** A Kptfile case (kptfileutil's tables): the texts are Kptfiles, merged as a subpackage's Kptfile. */
  kptfile: boolean;
}

/** Where the tables lie at kpt v1.0.0-beta.56 and at the kyaml it builds with (v0.15.0). */
const KPT_TABLES = {
  tag: "v1.0.0-beta.56",
  files: ["internal/util/merge/merge3_test.go", "pkg/kptfile/kptfileutil/util_test.go"],
};
const KYAML_TABLES = {
  tag: "kyaml/v0.15.0",
  files: ["scalar", "list", "map", "element", "kustomization"].map((f) => `kyaml/yaml/merge3/${f}_test.go`),
};

const TOKEN =
  /(?:\b(description|origin|update|updated|local):\s*`([^`]*)`)|(?:^[ \t]*(`[^`]*`|"(?:[^"\\\n]|\\.)*"):\s*\{)/gm;

/**
 * The cases of a Go test file whose table entries hold `origin`, `update(d)` and `local` as raw string
 * literals; a case is named by its `description` or its map key.
 */
export function parseGoTables(go: string, source: string, kptfile: boolean): TableCase[] {
  const out: TableCase[] = [];
  let name = "";
  let current: Partial<TableCase> | undefined;
  const flush = () => {
    if (current?.origin !== undefined && current.update !== undefined && current.local !== undefined)
      out.push(current as TableCase);
    current = undefined;
  };
  for (const m of go.matchAll(TOKEN)) {
    const [, field, text, key] = m;
    if (key !== undefined) {
      flush();
      name = key.slice(1, -1).replace(/\s+/g, " ");
      continue;
    }
    if (field === "description") {
      flush();
      name = (text ?? "").replace(/\s+/g, " ");
      continue;
    }
    if (field === "origin") {
      flush();
      current = { source, name, kptfile };
    }
    if (!current) continue;
    if (field === "origin") current.origin = text;
    else if (field === "update" || field === "updated") current.update = text;
    else if (field === "local") current.local = text;
  }
  flush();
  return out;
}

function show(gitDir: string, tag: string, path: string): string {
  return execFileSync("git", ["--git-dir", gitDir, "show", `${tag}:${path}`], {
    encoding: "utf8",
    maxBuffer: 1 << 26,
  });
}

/** `gitDir` is a git directory (bare or `.git`) of kptdev/kpt, resp. kubernetes-sigs/kustomize. */
export function readKptTables(kptGitDir: string, kustomizeGitDir?: string): TableCase[] {
  const cases = KPT_TABLES.files.flatMap((f) =>
    parseGoTables(show(kptGitDir, KPT_TABLES.tag, f), `kpt:${f}`, f.includes("kptfile")),
  );
  if (!kustomizeGitDir) return cases;
  return [
    ...cases,
    ...KYAML_TABLES.files.flatMap((f) =>
      parseGoTables(show(kustomizeGitDir, KYAML_TABLES.tag, f), `kustomize:${f}`, false),
    ),
  ];
}

/**
 * Why a case cannot run as a local `pkg update`, or undefined: a Kptfile that names an upstream makes
 * its directory a remote subpackage, which both tools would fetch from that (network) repository.
 */
export function unrunnable(c: TableCase): string | undefined {
  if (c.kptfile && [c.origin, c.update, c.local].some((t) => /^upstream(Lock)?:/m.test(t)))
    return "a Kptfile naming an upstream (a remote subpackage, fetched from the network)";
  return undefined;
}

/** A file's text as the tables' runners write it (trimmed), with a final line break. */
const asFile = (text: string) => `${text.trim()}\n`;

/** The case as a `pkg update`: f1.yaml (kpt's merge tests' file name), or a subpackage's Kptfile. */
export function tableTriple(c: TableCase): Triple {
  const file = c.kptfile ? "Kptfile" : "f1.yaml";
  return {
    original: { [file]: asFile(c.origin) },
    updated: { [file]: asFile(c.update) },
    edit: (fetched) => new Map([...fetched, [file, asFile(c.local)]]),
  };
}
