// Prints a YAML file reformatted as kpt writes it (for comparing with kpt output by hand).
import { readFileSync } from "node:fs";
import { parseAllDocuments } from "yaml";
import { normalizeComments } from "../src/kpt/yaml/comments/apply.js";
import { detectSeqIndent, formatDocuments } from "../src/kpt/yaml/format.js";

const text = readFileSync(process.argv[2]!, "utf8");
const docs = parseAllDocuments(text).filter((d) => d.contents !== null);
for (const d of docs) normalizeComments(d, text);
process.stdout.write(
  formatDocuments(
    docs,
    docs.map((d) => detectSeqIndent(d, text)),
  ),
);
