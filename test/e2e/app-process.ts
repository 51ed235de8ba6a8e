// The porchlight CLI from source, for tests that run the app as a child process and kill it:
// `node --conditions=@porchlight/source --import tsx test/e2e/app-process.ts serve` behaves as `node bin/porchlight.js serve` on a
// fresh build.
import { main } from "../../src/cli/main.js";

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`porchlight: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
