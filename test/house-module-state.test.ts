import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const SRC = join(import.meta.dirname, "..", "src");

/**
 * The state src/ keeps at module level, each a named singleton with its reason. Anything else that
 * changes from call to call belongs to an instance (a job's context, a renderer, a port) that a caller
 * makes and can see: a hidden module-level flag changes what a function does depending on what ran
 * before it, in tests and in a bot that runs for weeks alike. Lookup tables built once (a `Set` of
 * keywords, a `Map` filled at load) are not state and are not listed.
 */
const SINGLETONS: Record<string, string> = {
  "github/git-process.ts spawner": "the app's one git spawner process (docs/architecture.md, Conventions)",
  "github/git-process.ts holders": "how many users hold the git spawner, to release it when the last goes",
  "variants/expressions.ts loaded": "the CEL library, loaded on first use (its import costs 90 ms)",
  "variants/expressions.ts programs": "compiled CEL programs by source text (lru-cache, bounded)",
  "lifecycle/kpt-trailer.ts kptAnnotations":
    "a commit message's `kpt:` lines by the message's text (memoized, bounded): the index reads every revision tag's workspace at each reading of a repository",
  "lifecycle/revision-tag.ts parseRevisionTag":
    "a tag name read, by the name (memoized, bounded): each reading of a repository reads all its tags again",
  "github/octokit-repo.ts mergeTurns":
    "the merges this process has under way, by repository (emptied as each ends): two at once on one repository have GitHub refuse one (405), whoever the two callers are, each with adapters of their own",
  "github/conditional.ts flights":
    "the GETs this process has in the air or about to send, by token digest, media type and URL (emptied as each is answered): the same GET made at once by clients each caller's request makes for itself is asked once",
  "catalog/known.ts known":
    "catalogs read or written, by their text (lru-cache, bounded by size): a publish records its revision in the text the last one wrote without parsing or printing the whole file, as each job reads the catalog afresh",
  "jobs/check-proposal/resources.ts byBlob":
    "a file's resources by git blob id (lru-cache, bounded by size): a push to a proposal parses only the files it changed, as each job makes its own context",
  "fn/starlark/resolve.ts OUTER":
    "a closure's free variable → the binding it captures: a side table on nodes (weak)",
  "kpt/yaml/comments/apply.ts READ":
    "what the structural reader read of the text each document was composed from, read as it is composed (placed later: a render reads the whole package first): a side table on documents (weak)",
  "kpt/yaml/comments/apply.ts last":
    "the last text read for documents READ does not know, and what was read of it: its documents, placed one after another, read once (one text at a time)",
  "kpt/yaml/yaml-fast.ts COMMON": "documents the fast reader made: a side table on nodes (weak)",
  "kpt/yaml/yaml-fast.ts HEADED":
    "documents the fast reader made with a head above the first key, and that head as read: a side table on nodes (weak)",
};

/** Collections a module starts empty (so fills while it runs), and `let`/`var` bindings. */
const STATEFUL = /^(Map|Set|WeakMap|WeakSet|LRUCache)$/;
/** Calls that return a function keeping its answers in a collection of its own (lifecycle/memo.ts). */
const KEEPING = /^memoized$/;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : [],
  );
}

function moduleState(file: string): string[] {
  const sf = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  for (const statement of sf.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    const constant = (statement.declarationList.flags & ts.NodeFlags.Const) !== 0;
    for (const d of statement.declarationList.declarations) {
      const init = d.initializer;
      const empty =
        init !== undefined &&
        ts.isNewExpression(init) &&
        STATEFUL.test(init.expression.getText(sf)) &&
        (init.arguments === undefined ||
          init.arguments.length === 0 ||
          init.expression.getText(sf) === "LRUCache");
      const keeping =
        init !== undefined && ts.isCallExpression(init) && KEEPING.test(init.expression.getText(sf));
      if (!constant || empty || keeping) found.push(`${relative(SRC, file)} ${d.name.getText(sf)}`);
    }
  }
  return found;
}

describe("module-level state in src/", () => {
  const found = sources(SRC).flatMap(moduleState);

  it("holds none outside the named singletons", () => {
    const unnamed = found.filter((s) => !(s in SINGLETONS));
    expect(
      unnamed,
      "keep it in an instance the caller makes, or name it in SINGLETONS with its reason",
    ).toEqual([]);
  });

  it("keeps the list honest: a singleton that went is struck from it", () => {
    expect(Object.keys(SINGLETONS).filter((s) => !found.includes(s))).toEqual([]);
  });
});
