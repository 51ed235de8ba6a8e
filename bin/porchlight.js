#!/usr/bin/env node
// Thin entry point: no logic here. The CLI lives in src/cli and is built to dist/ by `npm run build`
// (run automatically by `npm ci` / `npm install` through the `prepare` script), then bundled into
// dist/bundle (scripts/bundle-cli.mjs), which starts in half the time.
import { setFlagsFromString } from "node:v8";
import { main } from "../dist/bundle/main.js";

// A command that reads a package, writes it and exits (fn, pkg) tunes V8 for a short run; the
// long-running server keeps V8's defaults. Measured with bench/render.ts (no-function render, CPU and
// peak memory, at 1,000 and 10,000 resources):
// - the young generation stays at its first size: left to grow (to 16 MiB semi-spaces) it is a fifth of
//   a 1,000-resource render's peak memory while the live heap stays under 20 MiB, and scavenging the
//   larger space costs more, not less (86 → 72 MiB and 0.41 → 0.39 s at 1,000; 185 → 158 MiB and
//   1.33 → 1.13 s at 10,000);
// - a function is optimised after four times V8's default budget of calls and loops: most of a short
//   run's optimising (on another thread, but CPU all the same) was for functions that did not run long
//   enough to pay it back (0.38 → 0.28 s CPU at 1,000, 1.24 → 1.06 s at 10,000).
if (process.argv[2] === "fn" || process.argv[2] === "pkg") {
  setFlagsFromString("--semi-space-growth-factor=1");
  setFlagsFromString("--interrupt-budget=540672");
}

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
