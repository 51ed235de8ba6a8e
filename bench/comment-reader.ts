/**
 * The comment reader's cost in process: parses the 1,000 resource files of the bench's 10,000-resource
 * package (render-package.ts), each given comment lines (a licence header, a line above each document's
 * `spec:` or `data:`, a foot after its last entry), places their comments (normalizeComments) and formats
 * them, a few passes, and prints each pass's CPU time (the process's: the machine is shared; the part
 * of it placing the comments took, by the wall clock's share) and a digest of the output (the same
 * digest before and after a change to the reader: the same bytes).
 *
 *   npx tsx bench/comment-reader.ts [passes] [resources] [header|one|items]
 *
 * Arguments: [passes (default 5)] [resources (default 10000)] [header: the licence header alone, the
 * documents' own line comments (`# kpt-set`, `# the service`) the only other comments; one: the header
 * and one comment line, in the file's first document; items: the package's documents as one ResourceList,
 * a function's output, read as the function wire reads it (fn/runtime/wire.ts readResourceList: parse,
 * then each item's comments placed), CPU per pass of the parse alone and of the whole read, and each
 * item formatted].
 */
import { createHash } from "node:crypto";
import { readResourceList, writeResourceList } from "../src/fn/runtime/wire.js";
import { parseResourceList } from "../src/kpt/resourcelist.js";
import { normalizeComments } from "../src/kpt/yaml/comments/apply.js";
import { detectSeqIndent, formatDocuments } from "../src/kpt/yaml/format.js";
import { parseYamlFile } from "../src/kpt/yaml/yamlfile.js";
import { generatePackage } from "./render-package.js";

const passes = Number(process.argv[2] ?? 5);
const resources = Number(process.argv[3] ?? 10_000);
const headerOnly = process.argv[4] === "header";
const oneLine = process.argv[4] === "one";
const items = process.argv[4] === "items";

/** A file of the package with comment lines a person might write: none the fast reader reads. */
function commented(text: string): string {
  const licence = "# Copyright 2026 The Authors\n# SPDX-License-Identifier: Apache-2.0\n\n";
  if (headerOnly) return `${licence}${text}`;
  if (oneLine) return `${licence}${text.replace(/^(spec|data):/m, "# what it holds\n$1:")}`;
  const docs = text.split("---\n").map((doc) => {
    const withHead = doc.replace(/^(spec|data):/m, "# what it holds\n$1:");
    return `${withHead}# end of ${/^kind: (\w+)/m.exec(doc)?.[1] ?? "resource"}\n`;
  });
  return `# Copyright 2026 The Authors\n# SPDX-License-Identifier: Apache-2.0\n\n${docs.join("---\n")}`;
}

const files: [string, string][] = [];
for (const [path, bytes] of generatePackage(resources, "")) {
  if (!path.endsWith(".yaml")) continue;
  files.push([path, commented(bytes.toString("utf8"))]);
}

/** The process's CPU time (user and system, all its threads: the collector's too), in microseconds. */
function cpu(): number {
  const { user, system } = process.cpuUsage();
  return user + system;
}

if (items) benchItems();
else benchFiles();

/** The files, each parsed, placed and formatted (see the header). */
function benchFiles(): void {
  const parsePlace: number[] = [];
  const place: number[] = [];
  const format: number[] = [];
  let digest = "";
  for (let p = 0; p < passes; p++) {
    const hash = createHash("sha256");
    // a CPU reading per phase, not per file (a reading costs some 50 µs here); a file's comments placed
    // right after it is parsed (the structural reader reads a text's syntax tree as parseYamlFile composes
    // it: its part is in the parse); the wall clock, cheap to read, splits the two
    let placing = 0;
    let all = 0;
    const t0 = cpu();
    const read = files.map(([path, text]) => {
      const w0 = performance.now();
      const { docs } = parseYamlFile(text, path);
      const w1 = performance.now();
      for (const d of docs) normalizeComments(d, text);
      const w2 = performance.now();
      placing += w2 - w1;
      all += w2 - w0;
      return docs;
    });
    const t1 = cpu();
    read.forEach((docs, i) => {
      // (i < files.length)
      const text = files[i]![1];
      hash.update(
        formatDocuments(
          docs,
          docs.map((d) => detectSeqIndent(d, text)),
        ),
      );
    });
    const t2 = cpu();
    parsePlace.push((t1 - t0) / 1e6);
    place.push(((t1 - t0) / 1e6) * (placing / all));
    format.push((t2 - t1) / 1e6);
    digest = hash.digest("hex").slice(0, 16);
  }

  console.log(
    `${files.length} files${process.argv[4] ? ` (${process.argv[4]})` : ""}; CPU s/pass: parse+place ${fmt(parsePlace)} (place ${fmt(place)}); format ${fmt(format)}; output ${digest}`,
  );
}

function fmt(xs: number[]): string {
  return xs.map((x) => x.toFixed(2)).join(" ");
}

/**
 * The package's documents as one ResourceList, as a function gives them back: read as the wire reads
 * it, each pass parsing it alone first (parseResourceList), then reading it (readResourceList: the same
 * parse, then every item's comments placed); the placing is the difference.
 */
function benchItems(): void {
  const docs = files.flatMap(([path, text]) => {
    const read = parseYamlFile(text, path).docs;
    for (const d of read) normalizeComments(d, text);
    return read;
  });
  const list = writeResourceList({ items: docs });
  const parse: number[] = [];
  const read: number[] = [];
  let digest = "";
  for (let p = 0; p < passes; p++) {
    const t0 = cpu();
    parseResourceList(list, "stdout");
    const t1 = cpu();
    const out = readResourceList(list, "stdout");
    const t2 = cpu();
    parse.push((t1 - t0) / 1e6);
    read.push((t2 - t1) / 1e6);
    const hash = createHash("sha256");
    for (const item of out.items) hash.update(formatDocuments([item]));
    digest = hash.digest("hex").slice(0, 16);
  }
  const place = read.map((r, i) => r - (parse[i] ?? 0));
  console.log(
    `1 ResourceList of ${docs.length} items (${(list.length / 1e6).toFixed(1)} MB); CPU s/pass: parse ${fmt(parse)}; parse+place ${fmt(read)} (place ${fmt(place)}); output ${digest}`,
  );
}
