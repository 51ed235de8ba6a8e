#!/usr/bin/env node
// Thin entry point: no logic here. The CLI lives in src/cli and is built to dist/ by `npm run build`
// (run automatically by `npm ci` / `npm install` through the `prepare` script), then bundled into
// dist/bundle (scripts/bundle-cli.mjs), which starts in half the time.
import { fileURLToPath } from "node:url";
import { main } from "../dist/bundle/main.js";
import { loadBundle, tuneForShortRun } from "./short-run.js";

const command = process.argv[2];
if (command === "fn" || command === "pkg") tuneForShortRun();

// The environment as a plain object: the `yaml` parser reads process.env once per token (its
// LOG_TOKENS switch), and Node's process.env is a slow native lookup — a tenth of a render's parse.
// Child processes still get it (they are given process.env when they start).
process.env = { ...process.env };

// `porchlight fn` runs from a CommonJS bundle of its own, compiled from the code cache the build made
// (scripts/code-cache.mjs): compiling its modules was a tenth of a 1,000-resource render's CPU.
const bundled = (name) => fileURLToPath(new URL(`../dist/bundle/${name}`, import.meta.url));
const preloaded =
  command === "fn" ? { fn: loadBundle(bundled("fn.cjs"), bundled("fn.cjs.cache")).exports.fnCommand } : {};

main(process.argv.slice(2), undefined, preloaded).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`porchlight: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
