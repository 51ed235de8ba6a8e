// Preloaded (`node -r`) into each command bench/cli.ts runs: at exit, writes the process's CPU time
// (user + system, in microseconds, all of it since the process started) to the file that
// PORCHLIGHT_BENCH_CPU names. CommonJS, as bin/ is: preloading it adds no ES module loader to the run.
const { writeFileSync } = require("node:fs");

const file = process.env.PORCHLIGHT_BENCH_CPU;
if (file)
  process.on("exit", () => {
    const { user, system } = process.cpuUsage();
    writeFileSync(file, String(user + system));
  });
