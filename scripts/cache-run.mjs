// What the code-cache scripts (code-cache.mjs, rpkg-code-cache.mjs) share: a command of the bundle run
// as a person runs it, its output dropped and a failure thrown with what it wrote on stderr (a cache
// made from a run that failed would hold the code of the failure).

/** Runs `porchlight ARGV` through the bundle's `main` in `cwd` with `env`; throws if it fails. */
export async function runForCache(main, argv, cwd, env) {
  let errors = "";
  const io = {
    stdout: () => {},
    stderr: (text) => {
      errors += text;
    },
    readStdin: async () => "",
    cwd,
    env,
    isTTY: false,
  };
  const code = await main(argv, io);
  if (code !== 0)
    throw new Error(`porchlight ${argv.join(" ")}, run to make the code cache, failed:\n${errors}`);
}
