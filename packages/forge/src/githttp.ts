import { execFile } from "node:child_process";
import type { IncomingMessage, ServerResponse } from "node:http";
import { join } from "node:path";
import { accessLevel } from "./access.js";
import { actorOf, authenticate, type Principal } from "./auth.js";
import type { ForgeCore } from "./context.js";
import { onRefChanges, type RefChange } from "./events.js";
import { ZERO_SHA } from "./git.js";
import { helperRequest } from "./helper.js";
import { ApiError } from "./http.js";
import { atLeast } from "./permission.js";

/**
 * Where the `git` on PATH keeps `git-http-backend`: its `git --exec-path` (Debian's /usr/lib/git-core,
 * Homebrew's libexec/git-core, …), asked once per PATH. A git that cannot say fails the request with
 * git's own message.
 */
const backends = new Map<string, Promise<string>>();
export function httpBackendPath(path = process.env.PATH ?? ""): Promise<string> {
  let found = backends.get(path);
  if (!found) {
    found = new Promise<string>((resolve, reject) => {
      execFile("git", ["--exec-path"], { env: { ...process.env, PATH: path } }, (err, stdout, stderr) => {
        if (err) reject(new Error(`git --exec-path failed: ${stderr.trim() || err.message}`));
        else resolve(join(stdout.trim(), "git-http-backend"));
      });
    });
    found.catch(() => backends.delete(path));
    backends.set(path, found);
  }
  return found;
}

/** Smart-HTTP paths: `/{owner}/{repo}.git/info/refs`, `/git-upload-pack`, `/git-receive-pack`. */
const GIT_PATH = /^\/([^/]+)\/([^/]+?)(?:\.git)?\/(info\/refs|git-upload-pack|git-receive-pack)$/;

export interface GitRequest {
  owner: string;
  repo: string;
  service: string;
  /** Route template for the request log. */
  template: string;
}

export function matchGitPath(path: string): GitRequest | undefined {
  const m = GIT_PATH.exec(path);
  if (!m) return undefined;
  return { owner: m[1]!, repo: m[2]!, service: m[3]!, template: `/{owner}/{repo}.git/${m[3]}` };
}

function plain(
  res: ServerResponse,
  status: number,
  text: string,
  headers: Record<string, string> = {},
): number {
  res.writeHead(status, { "content-type": "text/plain; charset=utf-8", ...headers });
  res.end(text);
  return status;
}

/**
 * Serves git's smart HTTP protocol through `git http-backend`, authenticated like GitHub
 * (basic auth, password = installation token or PAT). After a receive-pack, the refs are diffed
 * and the resulting webhooks sent. Answers the HTTP status it sent.
 */
export async function serveGit(
  core: ForgeCore,
  req: IncomingMessage,
  res: ServerResponse,
  g: GitRequest,
  url: URL,
): Promise<{ status: number; principal: Principal }> {
  let principal: Principal;
  try {
    principal = authenticate(core.store, req.headers.authorization);
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    principal = { kind: "anonymous" };
  }
  const challenge = { "www-authenticate": 'Basic realm="GitHub"' };
  const repo = core.store.repo(g.owner, g.repo);
  const level = repo ? accessLevel(core, principal, repo) : "none";
  const pushing = g.service === "git-receive-pack" || url.searchParams.get("service") === "git-receive-pack";
  // git sends its credentials only when challenged: a push, like a private repository, asks for them.
  if (principal.kind === "anonymous" && (!repo || repo.private || pushing)) {
    return { status: plain(res, 401, "Authentication required\n", challenge), principal };
  }
  if (!repo || level === "none") return { status: plain(res, 404, "Repository not found.\n"), principal };
  if (pushing && !atLeast(level, "write")) {
    const who = actorOf(principal)?.login ?? "anonymous";
    return {
      status: plain(res, 403, `Permission to ${repo.ownerLogin}/${repo.name}.git denied to ${who}.\n`),
      principal,
    };
  }
  const dir = core.git.dir(repo.ownerLogin, repo.name);
  const run = () =>
    runBackend(
      req,
      res,
      core.git.root,
      `/${repo.ownerLogin.toLowerCase()}/${repo.name.toLowerCase()}.git/${g.service}`,
      url,
      actorOf(principal)?.login ?? "anonymous",
    );
  if (g.service !== "git-receive-pack") {
    const status = await run();
    res.end();
    return { status, principal };
  }
  const status = await core.withRepoLock(repo.id, async () => {
    const before = await core.git.refs(dir);
    const status = await run();
    const after = await core.git.refs(dir);
    const changes: RefChange[] = [];
    for (const [ref, sha] of after) {
      if (before.get(ref) !== sha) changes.push({ ref, before: before.get(ref) ?? ZERO_SHA, after: sha });
    }
    for (const [ref, sha] of before) if (!after.has(ref)) changes.push({ ref, before: sha, after: ZERO_SHA });
    const pusher = actorOf(principal);
    // The client's push returns only once its webhooks are queued, so `webhooks.idle()` sees them.
    if (changes.length > 0 && pusher)
      await onRefChanges(core, repo, changes, pusher).catch((err) => core.report(err));
    // before the answer: a client that pushed finds its refs packed and the commit-graph written (once
    // in PACK_REFS_AT refs written)
    await core.git.tidyIfMany(dir).catch((err) => core.report(err));
    res.end();
    return status;
  });
  return { status, principal };
}

function runBackend(
  req: IncomingMessage,
  res: ServerResponse,
  projectRoot: string,
  pathInfo: string,
  url: URL,
  remoteUser: string,
): Promise<number> {
  return httpBackendPath().then(
    (backend) => spawnBackend(backend, req, res, projectRoot, pathInfo, url, remoteUser),
    (err: Error) => plain(res, 500, `${err.message}\n`),
  );
}

/**
 * `git http-backend` for one request, run by the forge's helper process (helper.ts): the request's body
 * streamed to it, its CGI headers made the response's status and headers, its output streamed back.
 */
function spawnBackend(
  backend: string,
  req: IncomingMessage,
  res: ServerResponse,
  projectRoot: string,
  pathInfo: string,
  url: URL,
  remoteUser: string,
): Promise<number> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    GIT_PROJECT_ROOT: projectRoot,
    GIT_HTTP_EXPORT_ALL: "1",
    GIT_CONFIG_NOSYSTEM: "1",
    PATH_INFO: pathInfo,
    REQUEST_METHOD: req.method ?? "GET",
    QUERY_STRING: url.search.replace(/^\?/, ""),
    REMOTE_USER: remoteUser,
    REMOTE_ADDR: req.socket.remoteAddress ?? "127.0.0.1",
    CONTENT_TYPE: req.headers["content-type"] ?? "",
    SERVER_PROTOCOL: "HTTP/1.1",
    GATEWAY_INTERFACE: "CGI/1.1",
  };
  if (req.headers["content-length"]) env.CONTENT_LENGTH = req.headers["content-length"];
  if (req.headers["content-encoding"]) env.HTTP_CONTENT_ENCODING = String(req.headers["content-encoding"]);
  if (req.headers["git-protocol"]) env.GIT_PROTOCOL = String(req.headers["git-protocol"]);
  // run from the forge's small helper process, not forked from this large one (helper.ts)
  return helperRequest({ file: backend, args: [], env }).then(
    (proxy) =>
      new Promise<number>((resolve) => {
        let status = 200;
        let headerBuf = Buffer.alloc(0);
        let headersDone = false;
        const failed = (message: string) => {
          if (!res.headersSent && !res.destroyed) plain(res, 500, message);
          else res.destroy();
          resolve(500);
        };
        proxy.on("error", (err) => failed(`git http-backend failed: ${err.message}\n`));
        req.on("error", () => undefined);
        res.on("error", () => undefined);
        req.pipe(proxy);
        // A client gone mid-request: the helper stops the backend.
        res.on("close", () => {
          if (!res.writableFinished) proxy.destroy();
        });
        proxy.on("response", (out) => {
          out.on("data", (chunk: Buffer) => {
            if (headersDone) {
              res.write(chunk);
              return;
            }
            headerBuf = Buffer.concat([headerBuf, chunk]);
            const crlf = headerBuf.indexOf("\r\n\r\n");
            const lf = headerBuf.indexOf("\n\n");
            const end = crlf >= 0 && (lf < 0 || crlf < lf) ? crlf : lf;
            if (end < 0) return;
            const sepLen = end === crlf ? 4 : 2;
            const headers: Record<string, string> = {};
            for (const line of headerBuf.subarray(0, end).toString("latin1").split(/\r?\n/)) {
              const colon = line.indexOf(":");
              if (colon < 0) continue;
              const k = line.slice(0, colon).trim();
              const v = line.slice(colon + 1).trim();
              if (k.toLowerCase() === "status") status = Number.parseInt(v, 10) || 200;
              else headers[k] = v;
            }
            headersDone = true;
            res.writeHead(status, headers);
            res.write(headerBuf.subarray(end + sepLen));
          });
          out.on("error", () => failed("git http-backend's answer was cut short\n"));
          out.on("end", () => {
            const error = out.trailers["x-error"];
            if (error !== undefined) return failed(`git http-backend failed: ${decodeURIComponent(error)}\n`);
            if (!headersDone) {
              const stderr = Buffer.from(out.trailers["x-stderr"] ?? "", "base64").toString("utf8");
              return failed(`git http-backend exited ${out.trailers["x-exit"] ?? "?"}: ${stderr}\n`);
            }
            resolve(status);
          });
        });
      }),
    (err: Error) => plain(res, 500, `git http-backend failed: ${err.message}\n`),
  );
}
