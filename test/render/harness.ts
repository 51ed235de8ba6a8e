import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { Document } from "yaml";
import { createFnCommand } from "../../src/cli/fn.js";
import { defaultRegistry, type FunctionRegistry } from "../../src/fn/registry.js";
import { type BuiltinFunction, FunctionError } from "../../src/fn/types.js";
import { getString } from "../../src/kpt/resource.js";
import { captureIO } from "../util/cli-io.js";

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `porchlight fn ...` in-process. */
export async function runFn(
  args: string[],
  cwd: string,
  registry: () => FunctionRegistry = testRegistry,
  stdin = "",
): Promise<CliRun> {
  const io = captureIO({ readStdin: async () => stdin, cwd });
  const code = await createFnCommand(registry)(args, io);
  return { code, stdout: io.out(), stderr: io.err() };
}

/** kpt prints durations; tests compare everything else. */
export function normalizeDurations(text: string): string {
  return text.replace(/ in [0-9.]+(ms|s)\n/g, " in 0s\n");
}

/**
 * Builtins that exist only in tests, to drive the render engine through the cases kpt's e2e suite
 * covers with its own test images: a validator that reports an error, one that adds a resource, one
 * that deletes resources of a kind.
 */
const fixtureBuiltins: BuiltinFunction[] = [
  {
    name: "fixture-reject",
    releases: "unversioned",
    run(input) {
      const data = (kind: string) => getString(input.functionConfig ?? new Document({}), ["data", kind]);
      const kind = data("kind") ?? "ConfigMap";
      const results = input.items
        .filter((d) => getString(d, ["kind"]) === kind)
        .map((d) => ({
          message: data("message") ?? "not allowed",
          severity: "error" as const,
          resourceRef: {
            apiVersion: getString(d, ["apiVersion"]),
            kind,
            name: getString(d, ["metadata", "name"]),
          },
        }));
      if (results.length > 0) throw new FunctionError(`${results.length} resource(s) not allowed`, results);
      return input;
    },
  },
  {
    name: "fixture-add",
    releases: "unversioned",
    run(input) {
      const name = getString(input.functionConfig ?? new Document({}), ["data", "name"]) ?? "added";
      input.items.push(
        new Document({ apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data: { a: "b" } }),
      );
      return input;
    },
  },
  {
    name: "fixture-delete",
    releases: "unversioned",
    run(input) {
      const kind = getString(input.functionConfig ?? new Document({}), ["data", "kind"]);
      input.items = input.items.filter((d) => getString(d, ["kind"]) !== kind);
      return input;
    },
  },
];

export function testRegistry(): FunctionRegistry {
  return defaultRegistry().with(fixtureBuiltins);
}

/** A fresh copy of a directory in a temp dir (removed by the returned cleanup). */
export function copyToTemp(
  src: string,
  filter: (rel: string) => boolean = () => true,
): { dir: string; done: () => void } {
  const root = mkdtempSync(join(tmpdir(), "porchlight-render-"));
  const dir = join(root, "pkg");
  cpSync(src, dir, { recursive: true, filter: (s) => filter(relative(src, s).replaceAll("\\", "/")) });
  return { dir, done: () => rmSync(root, { recursive: true, force: true }) };
}

/** Every file below `dir` (relative path → text), skipping paths the filter refuses. */
export function readFiles(
  dir: string,
  filter: (rel: string) => boolean = () => true,
): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string): void => {
    for (const name of readdirSync(d).sort()) {
      const full = join(d, name);
      const rel = relative(dir, full).replaceAll("\\", "/");
      if (!filter(rel)) continue;
      if (statSync(full).isDirectory()) walk(full);
      else out[rel] = readFileSync(full, "utf8");
    }
  };
  walk(dir);
  return out;
}
