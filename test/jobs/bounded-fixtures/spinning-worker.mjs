// A worker thread that says it is ready, as porchlight's own does, then spins for ever on its first
// request: JavaScript that never yields, which only ending the thread stops.
import { parentPort } from "node:worker_threads";

parentPort.postMessage({ op: "ready" });
parentPort.on("message", () => {
  for (;;) {
    // never returns
  }
});
