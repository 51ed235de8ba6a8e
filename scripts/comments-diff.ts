/**
 * A random differential of comment placement: writes packages of ConfigMaps with comment lines and
 * blank lines sprinkled between their lines, renders each with kpt and with porchlight (bin/porchlight.js,
 * so build dist first) and prints the files that differ.
 *
 * usage: tsx scripts/comments-diff.ts [--seeds FROM-TO] [--shapes LIST] [--function KIND] [--crlf] [--keep] [--quiet]
 *   --seeds: one package per seed (default 1-10), each of 100 files;
 *   --shapes: comma-separated, default all: `cols` (comment lines at any column, not only at the
 *     line's or the next line's), `lists` (lists of lists), `dash` (a `-` alone on its line, the
 *     item's mapping under it), `docs` (comments at a document's start and end, several documents
 *     in a file), `dedent` (comment lines at the column of a block that closes before the next line,
 *     between that line's column and the one before); none of them: the shapes of the first generator (comment lines at the columns of
 *     the lines around them).
 *   --function: `none` (default), `exec` (both run an exec function that echoes its input, `cat`), or
 *     `builtin` (kpt runs that exec function, porchlight a builtin that changes nothing: a builtin
 *     stands for a container, whose trip through yaml.v3 is the exec function's, once more);
 *   --crlf: the files' lines end in CRLF (a file written on Windows);
 *   --keep: leave the packages (the input, kpt's and porchlight's output) and print where they are.
 * Prints each differing file's diff (unless --quiet) and the count per seed; skips, saying so, when
 * kpt is not installed.
 */
import { ALL_SHAPES, generate } from "./comments-gen.js";
import { differentialArgs, FUNCTIONS, runDifferential } from "./render-differential.js";

function main(): number {
  const { opt, ...run } = differentialArgs(process.argv.slice(2));
  const shapes = new Set((opt("shapes") ?? ALL_SHAPES.join(",")).split(",").filter((s) => s !== ""));
  const unknown = [...shapes].filter((s) => !ALL_SHAPES.includes(s));
  if (Number.isNaN(run.from) || unknown.length > 0 || !FUNCTIONS.includes(run.fn)) {
    process.stderr.write(
      `usage: --seeds FROM-TO --shapes ${ALL_SHAPES.join(",")} --function ${FUNCTIONS.join("|")}\n`,
    );
    return 2;
  }
  return runDifferential({ ...run, name: "comments", generate: (seed) => generate(seed, shapes) });
}

process.exitCode = main();
