#!/usr/bin/env node
// Thin entry point: no logic here. The CLI lives in src/cli and is built to dist/ by `npm run build`
// (run automatically by `npm ci` / `npm install` through the `prepare` script), then bundled into
// dist/bundle (scripts/bundle-cli.mjs), which starts in half the time.
import { main } from "../dist/bundle/main.js";

// The environment as a plain object: the `yaml` parser reads process.env once per token (its
// LOG_TOKENS switch), and Node's process.env is a slow native lookup — a tenth of a render's parse.
// Child processes still get it (they are given process.env when they start).
process.env = { ...process.env };

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`porchlight: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
