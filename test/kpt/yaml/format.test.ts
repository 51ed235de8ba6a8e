import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Document, parseDocument } from "yaml";
import { normalizeComments } from "../../../src/kpt/yaml/comments/apply.js";
import {
  canPlain,
  detectSeqIndent,
  formatDocument,
  formatDocuments,
  plainByRules,
  plainSafe,
  seqIndentIn,
} from "../../../src/kpt/yaml/format.js";
import { parseYamlFile } from "../../../src/kpt/yaml/yamlfile.js";
import { functionRoundTrip } from "../../../src/render/sync.js";
import { hasKpt } from "../../render/kpt-oracle.js";

const CORPUS = join(import.meta.dirname, "../../fixtures/render/_format");
const cases = readdirSync(CORPUS)
  .filter((f) => f.endsWith(".yaml"))
  .map((f) => f.slice(0, -".yaml".length))
  .sort();

/**
 * Reads and writes a file as porchlight's render does: with an exec function that echoes its input
 * (`trips` 1), or with no function at all (`trips` 0).
 */
function reformat(text: string, trips = 1): string {
  const normalized = text.replaceAll("\r\n", "\n");
  const { docs } = parseYamlFile(normalized, "x.yaml");
  for (const d of docs) normalizeComments(d, normalized);
  if (trips > 0) for (const d of docs) functionRoundTrip(d, trips);
  return formatDocuments(
    docs,
    docs.map((d) => detectSeqIndent(d, normalized)),
  );
}

describe("formatDocuments reproduces kpt's rewrite of a file", () => {
  it.each(cases)("%s", (name) => {
    const input = readFileSync(join(CORPUS, `${name}.yaml`), "utf8");
    const expected = readFileSync(join(CORPUS, `${name}.expected`), "utf8");
    expect(reformat(input)).toBe(expected);
  });
});

describe("with no function, files are written back as kpt writes them (name.plain.expected)", () => {
  it.each(cases)("%s", (name) => {
    const input = readFileSync(join(CORPUS, `${name}.yaml`), "utf8");
    const expected = readFileSync(join(CORPUS, `${name}.plain.expected`), "utf8");
    expect(reformat(input, 0)).toBe(expected);
  });
});

describe.skipIf(!hasKpt)("the corpus' expected files are what kpt writes today", () => {
  // Each file gets a subpackage of its own: kpt's output for a document's last comment depends on whether
  // the document was the last item of the ResourceList it went through (a yaml.v3 round-trip artefact).
  it("matches a kpt fn render with a no-op exec function", () => {
    const dir = mkdtempSync(join(tmpdir(), "porchlight-format-"));
    try {
      const script = join(dir, "cat.sh");
      writeFileSync(script, "#!/bin/sh\ncat\n", { mode: 0o755 });
      const kptfile = (name: string, pipeline: string) =>
        `apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: ${name}\n${pipeline}`;
      const pkg = join(dir, "pkg");
      mkdirSync(pkg);
      writeFileSync(join(pkg, "Kptfile"), kptfile("pkg", ""));
      for (const name of cases) {
        mkdirSync(join(pkg, name));
        writeFileSync(
          join(pkg, name, "Kptfile"),
          kptfile(name, `pipeline:\n  mutators:\n  - exec: ${script}\n`),
        );
        writeFileSync(join(pkg, name, "x.yaml"), readFileSync(join(CORPUS, `${name}.yaml`)));
      }
      execFileSync("kpt", ["fn", "render", pkg, "--allow-exec"], { stdio: "pipe" });
      for (const name of cases) {
        expect(readFileSync(join(pkg, name, "x.yaml"), "utf8"), name).toBe(
          readFileSync(join(CORPUS, `${name}.expected`), "utf8"),
        );
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("matches a kpt fn render with no function", () => {
    const dir = mkdtempSync(join(tmpdir(), "porchlight-format-"));
    try {
      const pkg = join(dir, "pkg");
      mkdirSync(pkg);
      writeFileSync(join(pkg, "Kptfile"), "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: pkg\n");
      for (const name of cases) {
        mkdirSync(join(pkg, name));
        writeFileSync(join(pkg, name, "x.yaml"), readFileSync(join(CORPUS, `${name}.yaml`)));
      }
      execFileSync("kpt", ["fn", "render", pkg], { stdio: "pipe" });
      for (const name of cases) {
        expect(readFileSync(join(pkg, name, "x.yaml"), "utf8"), name).toBe(
          readFileSync(join(CORPUS, `${name}.plain.expected`), "utf8"),
        );
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("strings set by functions", () => {
  const withValue = (value: string): string => {
    const doc = parseDocument("a: x\n");
    doc.set("b", doc.createNode(value));
    doc.setIn(["a"], value);
    return formatDocument(doc);
  };

  it.each([
    ["plain", "plain"],
    ["true", '"true"'],
    ["123", '"123"'],
    ["0x1F", '"0x1F"'],
    ["1.5e3", '"1.5e3"'],
    ["2001-12-14", '"2001-12-14"'],
    ["", '""'],
    ["null", '"null"'],
    ["~", '"~"'],
    ["yes", "yes"],
    ["a: b", "'a: b'"],
    ["- x", "'- x'"],
    ["#x", "'#x'"],
    ["x #y", "'x #y'"],
    [" lead", "' lead'"],
    ["it's", "it's"],
    ["tab\there", '"tab\\there"'],
    ["line\nbreak\n", "|\n  line\n  break"],
    ["no final break\nx", "|-\n  no final break\n  x"],
  ])("%j is written as %s", (value, text) => {
    expect(withValue(value)).toBe(`a: ${text}\nb: ${text}\n`);
  });

  it("writes a new nested map and sequence in the document's sequence style", () => {
    const doc = new Document({ spec: { list: ["a", { name: "b", args: ["c"] }] } });
    expect(formatDocument(doc, "compact")).toBe("spec:\n  list:\n  - a\n  - name: b\n    args:\n    - c\n");
    expect(formatDocument(doc, "wide")).toBe(
      "spec:\n  list:\n    - a\n    - name: b\n      args:\n        - c\n",
    );
  });
});

describe("detectSeqIndent", () => {
  const detect = (text: string) => detectSeqIndent(parseDocument(text), text);

  it("finds compact and wide sequences and defaults to compact", () => {
    expect(detect("a:\n- x\n")).toBe("compact");
    expect(detect("a:\n  - x\n")).toBe("wide");
    expect(detect("a: 1\n")).toBe("compact");
    expect(detect("a: [x]\n")).toBe("compact");
  });

  it("goes with the first sequence under a key, comments aside", () => {
    expect(detect("a:\n  - x\nb:\n- 1\n- 2\n- 3\n")).toBe("wide");
    expect(detect("a: # note\n- x\nb:\n  - 1\n")).toBe("compact");
    expect(detect("a:\n  # note\n  - x\nb:\n- 1\n")).toBe("wide");
  });

  it("reads only the lines that may decide, and decides as reading every line does", () => {
    // Every line read as the reader before this one read it: cut out, its comment removed, then tested.
    const everyLine = (text: string, from: number, to: number): string => {
      let keyLine: string | undefined;
      for (let start = from; start <= to; ) {
        const nl = text.indexOf("\n", start);
        const end = nl < 0 || nl > to ? to : nl;
        const raw = text.slice(start, end);
        start = end + 1;
        if (raw.trimStart().startsWith("#")) continue;
        const line = /^ *- +#/.test(raw) ? raw.slice(0, raw.indexOf("- ") + 2) : withoutComment(raw);
        if (keyLine !== undefined) {
          const dash = line.indexOf("- ");
          const key = keyLine.trim();
          if (
            dash >= 0 &&
            line.slice(0, dash).trim() === "" &&
            key.endsWith(":") &&
            key.indexOf(":") === key.length - 1
          ) {
            const keyIndent = keyLine.length - keyLine.trimStart().length;
            if (dash === keyIndent) return "compact";
            if (dash - keyIndent === 2) return "wide";
          }
        }
        keyLine = line;
      }
      return "compact";
    };
    const withoutComment = (line: string): string => {
      let quote = "";
      for (let i = 0; i < line.length; i++) {
        const c = line[i];
        if (quote) {
          if (c === quote) quote = "";
        } else if (c === '"' || c === "'") quote = c;
        else if (c === "#" && (i === 0 || line[i - 1] === " " || line[i - 1] === "\t"))
          return line.slice(0, i).trimEnd();
      }
      return line;
    };
    // Lines of keys, dashes and comments, indented by spaces, tabs and characters trimStart takes for
    // white space (or not: a control character, DEL).
    const piece = fc.constantFrom(
      " ",
      "  ",
      "\t",
      "\u00a0",
      "\ufeff",
      "\r",
      "\u0001",
      "\u007f",
      "- ",
      "-",
      "#",
      "# c",
      "a:",
      "b",
      ": ",
      "'#'",
      '"',
      "x",
    );
    const line = fc.array(piece, { maxLength: 6 }).map((p) => p.join(""));
    const text = fc.array(line, { maxLength: 8 }).map((l) => l.join("\n"));
    fc.assert(
      fc.property(text, fc.nat(), fc.nat(), (t, a, b) => {
        const from = t.length === 0 ? 0 : a % (t.length + 1);
        const to = from + (t.length === 0 ? 0 : b % (t.length - from + 1));
        expect(seqIndentIn(t, from, to)).toBe(everyLine(t, from, to));
      }),
      { numRuns: 3000 },
    );
    expect(seqIndentIn("a:\n\t\u00a0- x\n", 0, 10)).toBe(everyLine("a:\n\t\u00a0- x\n", 0, 10));
    expect(seqIndentIn("a:\n # c\n  - # d\n", 0, 16)).toBe("wide");
  });
});

describe("canPlain", () => {
  it("keeps plain what libyaml's rules keep plain, the common values through its shortcut", () => {
    // Letters and digits, the shortcut's other characters, and characters some rule looks at.
    const char = fc.constantFrom(..."aZ09-._/:#,[]{}?!&*|>'\"%@` \t\n\u0085\u00e9\ufeff~=+");
    const ctx = fc.record({ flow: fc.boolean(), key: fc.boolean(), indent: fc.constant(0) });
    fc.assert(
      fc.property(fc.array(char, { maxLength: 8 }), ctx, (chars, c) => {
        const value = chars.join("");
        if (plainSafe(value)) expect(plainByRules(value, c), JSON.stringify(value)).toBe(true);
        expect(canPlain(value, c)).toBe(plainByRules(value, c));
      }),
      { numRuns: 5000 },
    );
    for (const value of ["app-1", "registry.example.com/app", "v1", "a_b", "9", "Deployment"])
      expect(plainSafe(value), value).toBe(true);
  });
});
