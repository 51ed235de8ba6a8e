#!/usr/bin/env node
// Thin entry point: no logic here. The CLI lives in src/cli and is built to dist/ by `npm run build`
// (run automatically by `npm ci` / `npm install` through the `prepare` script).
import { main } from "../dist/cli/main.js";

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`porchlight: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
