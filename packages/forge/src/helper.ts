import { type ChildProcess, spawn } from "node:child_process";
import { type ClientRequest, request } from "node:http";

/**
 * The small process that starts the forge's git processes. Linux's fork copies the page tables of the
 * process that forks, and the forge mostly runs inside a large one (`porchlight serve`: the app, the API,
 * their caches): each git request's `git http-backend` cost that process 15–40 ms of its one event loop
 * before git ran, a third of its CPU in Porch's iterative benchmark, and each of the forge's own git
 * commands (a pull request's diff, a merge's commit, a ref's update) more as its heap grew. This child
 * holds some 40 MB: the forge sends it each program to run over loopback HTTP (the file, its arguments
 * and its whole environment in a header, its standard input as the body), it starts the program and
 * streams back its output as it comes, then its exit code and error output as trailers. Its code is given
 * to `node -e` (no file to find, the same under tsx and from dist); it exits when the forge's process
 * ends, however it ended.
 */
const HELPER = `
process.title = "forge git helper";
const http = require("node:http");
const { spawn } = require("node:child_process");
process.on("disconnect", () => process.exit(0));
const server = http.createServer({ maxHeaderSize: 1 << 20 }, (req, res) => {
  let run;
  try {
    run = JSON.parse(Buffer.from(String(req.headers["x-run"]), "base64").toString("utf8"));
  } catch {
    res.writeHead(400).end();
    return;
  }
  res.writeHead(200, { "content-type": "application/octet-stream", trailer: "x-exit, x-error, x-stderr" });
  let child;
  const end = (trailers) => {
    if (res.writableEnded) return;
    res.addTrailers(trailers);
    res.end();
  };
  try {
    child = spawn(run.file, run.args, { env: run.env, stdio: ["pipe", "pipe", "pipe"] });
  } catch (e) {
    return end({ "x-error": encodeURIComponent(String((e && e.message) || e)) });
  }
  const err = [];
  child.stderr.on("data", (d) => err.push(d));
  child.stdin.on("error", () => {});
  req.on("error", () => {});
  res.on("error", () => {});
  req.pipe(child.stdin);
  // the forge's client gone: the program stopped (git leaves refs untouched for an incomplete pack)
  res.on("close", () => { if (!res.writableFinished) child.kill("SIGTERM"); });
  child.stdout.on("data", (d) => res.write(d));
  child.on("error", (e) => end({ "x-error": encodeURIComponent(e.message) }));
  child.on("close", (code) =>
    end({ "x-exit": String(code), "x-stderr": Buffer.concat(err).toString("base64") }),
  );
});
server.listen(0, "127.0.0.1", () => process.send({ port: server.address().port }));
`;

/** A program for the helper to run: the file, its arguments, its whole environment. */
export interface HelperRun {
  file: string;
  args: readonly string[];
  env: Record<string, string | undefined>;
}

/** The helper's port, started on the first run of this process (and again if it ended). */
let helper: { child: ChildProcess; port: Promise<number> } | undefined;

function helperPort(): Promise<number> {
  if (helper && helper.child.exitCode === null && helper.child.signalCode === null) return helper.port;
  const child = spawn(process.execPath, ["-e", HELPER], {
    stdio: ["ignore", "ignore", "inherit", "ipc"],
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/tmp" },
  });
  const port = new Promise<number>((resolve, reject) => {
    child.once("message", (m: { port: number }) => resolve(m.port));
    child.once("error", reject);
    child.once("exit", (code, signal) =>
      reject(new Error(`the forge's git helper exited (${signal ?? `code ${code}`})`)),
    );
  });
  port.catch(() => undefined);
  // the forge's process exits when its own work is done: the helper keeps nothing alive
  child.unref();
  child.channel?.unref();
  const started = { child, port };
  child.on("exit", () => {
    if (helper === started) helper = undefined;
  });
  helper = started;
  return port;
}

/**
 * The helper's request that runs `run`: write the program's input to it (and end it); its response is
 * the program's output, with the trailers `x-exit` (its exit code), `x-stderr` (its error output, base64)
 * or `x-error` (why it did not start).
 */
export async function helperRequest(run: HelperRun): Promise<ClientRequest> {
  const port = await helperPort();
  const spec = Buffer.from(JSON.stringify(run)).toString("base64");
  return request({ host: "127.0.0.1", port, method: "POST", headers: { "x-run": spec } });
}

/** What a program the helper ran did: its exit code (null: ended by a signal), its output. */
export interface Ran {
  code: number | null;
  stdout: Buffer;
  stderr: string;
}

/** Runs `run` in the helper with `input` as its standard input; rejects where it could not start. */
export async function runInHelper(run: HelperRun, input?: string | Buffer): Promise<Ran> {
  const req = await helperRequest(run);
  return new Promise<Ran>((resolve, reject) => {
    req.on("error", (err) => reject(new Error(`${run.file}: the forge's git helper failed: ${err.message}`)));
    req.on("response", (res) => {
      const out: Buffer[] = [];
      res.on("data", (chunk: Buffer) => out.push(chunk));
      res.on("error", (err) => reject(new Error(`${run.file}: its output was cut short: ${err.message}`)));
      res.on("end", () => {
        const error = res.trailers["x-error"];
        if (error !== undefined) return reject(new Error(`${run.file}: ${decodeURIComponent(error)}`));
        const exit = res.trailers["x-exit"];
        resolve({
          code: exit === undefined || exit === "null" ? null : Number(exit),
          stdout: Buffer.concat(out),
          stderr: Buffer.from(res.trailers["x-stderr"] ?? "", "base64").toString("utf8"),
        });
      });
    });
    req.end(input ?? "");
  });
}
