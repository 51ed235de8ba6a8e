import { existsSync, writeFileSync } from "node:fs";
import { basename, posix, resolve } from "node:path";
import { Document, visit } from "yaml";
import { goQuoteString } from "../../api/go-quote.js";
import { encoderStyle } from "../../fn/builtins/util/go-json-roundtrip.js";
import { KPTFILE_API_VERSION, KPTFILE_NAME } from "../../kpt/kptfile.js";
import { PACKAGE_CONTEXT_FILE, packageContextText } from "../../kpt/package-context.js";
import { formatDocument } from "../../kpt/yaml/format.js";
import { type ParsedArgs, parseArgs } from "../fn-args.js";
import { goFileError } from "../go-errors.js";
import { type CliIO, UsageError } from "../io.js";
import { CsvError, readCsvRecord } from "./go-csv.js";

/**
 * `pkg init [DIR]`, as kpt v1.0.0-beta.56 makes a package: in an existing directory, each of Kptfile,
 * README.md and package-context.yaml that is not there yet is written (one `writing PATH` line on
 * stderr for each), with kpt's bytes; files already there are left as they are.
 */
const INIT_HELP = `porchlight pkg init — initialize an empty package, as kpt pkg init

Usage:
  porchlight pkg init [DIR] [--description TEXT] [--keywords K1,K2] [--site URL]

  DIR must exist (default: the current directory); the package is named after it.
  --description   short description of the package (default "sample description")
  --keywords      keywords of the package, comma-separated; repeat the flag to add more
  --site          link to a page with information about the package
`;

interface InitOptions {
  description: string;
  keywords: string[];
  site: string;
}

/** The Kptfile kpt writes for a new package: kpt's Go struct order, empty fields left out. */
function initKptfileText(name: string, o: InitOptions): string {
  const info: Record<string, unknown> = {};
  if (o.site !== "") info.site = o.site;
  if (o.description !== "") info.description = o.description;
  if (o.keywords.length > 0) info.keywords = o.keywords;
  const doc = new Document({
    apiVersion: KPTFILE_API_VERSION,
    kind: "Kptfile",
    metadata: { name, annotations: { "config.kubernetes.io/local-config": "true" } },
    info,
  });
  // kpt encodes Go strings: `yes`, `on`, `1:20` come out double-quoted, as YAML 1.1 would misread them.
  visit(doc, {
    Scalar(_, node) {
      if (typeof node.value === "string") node.type = encoderStyle(node.value);
    },
  });
  return formatDocument(doc);
}

/** Go html/template's escaping of a value in text: kpt fills its README template through it. */
const HTML_TEXT_ESCAPES: Record<string, string> = {
  "\0": "\uFFFD",
  '"': "&#34;",
  "&": "&amp;",
  "'": "&#39;",
  "+": "&#43;",
  "<": "&lt;",
  ">": "&gt;",
};

function htmlText(value: string): string {
  return value.replace(/[\0"&'+<>]/g, (c) => HTML_TEXT_ESCAPES[c] ?? c);
}

/** The README.md kpt writes for a new package (its template, values HTML-escaped as kpt's are). */
function initReadmeText(name: string, description: string): string {
  const n = htmlText(name);
  const tick = "`";
  const fence = "```";
  return `# ${n}

## Description
${htmlText(description)}

## Usage

### Fetch the package
${tick}kpt pkg get REPO_URI[.git]/PKG_PATH[@VERSION] ${n}${tick}
Details: https://kpt.dev/reference/cli/pkg/get/

### View package content
${tick}kpt pkg tree ${n}${tick}
Details: https://kpt.dev/reference/cli/pkg/tree/

### Apply the package
${fence}
kpt live init ${n}
kpt live apply ${n} --reconcile-timeout=2m --output=table
${fence}
Details: https://kpt.dev/reference/cli/live/
`;
}

/** kpt's package context for a package not yet deployed: `data.name` is the placeholder `example`. */
function initPackageContextText(): string {
  return packageContextText("example");
}

function initOptions(p: ParsedArgs): InitOptions {
  const keywords: string[] = [];
  for (const value of p.values.get("keywords") ?? []) {
    try {
      keywords.push(...readCsvRecord(value));
    } catch (err) {
      if (!(err instanceof CsvError)) throw err;
      throw new UsageError(
        `error: invalid argument ${goQuoteString(value)} for "--keywords" flag: ${err.message}`,
        1,
      );
    }
  }
  const last = (name: string, fallback: string) => p.values.get(name)?.at(-1) ?? fallback;
  return { description: last("description", "sample description"), keywords, site: last("site", "") };
}

export async function initCommand(args: string[], io: CliIO): Promise<number> {
  const p = parseArgs(
    args,
    { values: { description: undefined, keywords: undefined, site: undefined }, bools: ["help"] },
    "init",
  );
  if (p.bools.has("help")) {
    io.stdout(INIT_HELP);
    return 0;
  }
  const positional = [...p.positional, ...p.rest];
  if (positional.length > 1) {
    io.stderr(`error: accepts at most 1 arg(s), received ${positional.length}\n`);
    return 1;
  }
  const options = initOptions(p);
  const arg = positional[0] ?? ".";
  const dir = resolve(io.cwd, arg);
  if (!existsSync(dir)) {
    io.stderr(`error: ${dir} does not exist\n`);
    return 1;
  }
  const name = basename(dir) || dir;
  const files: [string, () => string][] = [
    [KPTFILE_NAME, () => initKptfileText(name, options)],
    ["README.md", () => initReadmeText(name, options.description)],
    [PACKAGE_CONTEXT_FILE, initPackageContextText],
  ];
  for (const [file, text] of files) {
    const path = posix.join(dir, file);
    if (existsSync(path)) continue;
    io.stderr(`writing ${posix.join(arg, file)}\n`);
    try {
      writeFileSync(path, text());
    } catch (err) {
      io.stderr(`error: ${goFileError("open", path, err)}\n`);
      return 1;
    }
  }
  return 0;
}
