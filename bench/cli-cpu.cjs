// Preloaded (`node -r`) into each command bench/cli.ts runs: at exit, writes the process's CPU time
// (user + system, in microseconds, all of it since the process started), the number of git processes
// it started and their CPU (its children's, in microseconds, from /proc: Linux only, else 0) to the file
// that PORCHLIGHT_BENCH_CPU names, as `CPU GITS CHILDREN`. The git processes
// are counted where they start (child_process.spawn, which git-process.ts runs git with), patched when
// the command first requires child_process: loading it here would add its cost to every command.
// CommonJS, as bin/ is: preloading it adds no ES module loader to the run.
const Module = require("node:module");
const { readFileSync, writeFileSync } = require("node:fs");

const file = process.env.PORCHLIGHT_BENCH_CPU;
if (file) {
  let gits = 0;
  const patched = new WeakSet();
  const load = Module.prototype.require;
  Module.prototype.require = function countingRequire(id) {
    const loaded = load.call(this, id);
    if ((id === "node:child_process" || id === "child_process") && !patched.has(loaded)) {
      patched.add(loaded);
      const spawn = loaded.spawn;
      loaded.spawn = function countedSpawn(command, ...rest) {
        if (command === "git") gits++;
        return spawn.call(this, command, ...rest);
      };
    }
    return loaded;
  };
  process.on("exit", () => {
    const { user, system } = process.cpuUsage();
    writeFileSync(file, `${user + system} ${gits} ${childrenCpu()}`);
  });
}

/** The CPU of the children this process waited for (cutime + cstime of /proc/self/stat), in microseconds. */
function childrenCpu() {
  try {
    // the fields after the command's name (in parentheses, which may hold spaces): cutime is the 14th
    const stat = readFileSync("/proc/self/stat", "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return ((Number(fields[13]) + Number(fields[14])) * 1e6) / 100;
  } catch {
    return 0;
  }
}
