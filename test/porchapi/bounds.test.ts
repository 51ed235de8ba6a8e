import { readdirSync } from "node:fs";
import type { ClientRequest, IncomingHttpHeaders, IncomingMessage } from "node:http";
import { request } from "node:https";
import { tmpdir } from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KUBECTL_MISSING } from "../util/kubectl.js";
import { type ApiWorld, apiWorld } from "./world.js";

const REVISIONS = "/apis/porch.kpt.dev/v1alpha1/namespaces/acme/packagerevisions";
const DRAFT = `apiVersion: porch.kpt.dev/v1alpha1
kind: PackageRevision
metadata:
  name: blueprints.kept.v1
  namespace: acme
spec:
  packageName: kept
  workspaceName: v1
  repository: blueprints
  tasks:
  - type: init
    init:
      description: kept
`;
const KIB = 1024;
const MIB = 1024 * KIB;

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** One request held open by the test: its answer's head as soon as it comes, the whole answer at its end. */
interface Open {
  req: ClientRequest;
  head: Promise<IncomingMessage>;
  answer: Promise<Answer>;
}

/** Polls `check` every 50 ms until it holds, `ms` at most. */
async function until(what: string, check: () => boolean | Promise<boolean>, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`not within ${ms} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const status = (a: Answer) =>
  JSON.parse(a.body) as { kind: string; reason: string; code: number; message: string };

/**
 * Porch's API within its bounds (docs/porch-api.md): watches capped per token and in all, a watch's work
 * ended with its client, a token GitHub refuses answered before its body is read, bodies cut when idle
 * and refused past the budget of bytes in flight, a folder of cache clones only for accepted tokens and
 * only the most recently used kept, and bad paths and bodies answered 400 naming nothing of the server.
 */
describe.skipIf(KUBECTL_MISSING !== undefined)("Porch's API within its bounds", () => {
  let w: ApiWorld;
  const opened: ClientRequest[] = [];
  const open = (
    path: string,
    o: {
      token?: string;
      method?: string;
      headers?: Record<string, string>;
      body?: string;
      end?: boolean;
    } = {},
  ): Open => {
    const req = request(`${w.url}${path}`, {
      method: o.method ?? "GET",
      ca: w.caPem,
      agent: false,
      headers: { ...(o.token ? { authorization: `Bearer ${o.token}` } : {}), ...o.headers },
    });
    opened.push(req);
    const head = new Promise<IncomingMessage>((resolve, reject) => {
      req.on("response", resolve);
      req.on("error", reject);
    });
    const answer = head.then(
      (res) =>
        new Promise<Answer>((resolve) => {
          let body = "";
          res.setEncoding("utf8");
          res.on("data", (c: string) => {
            body += c;
          });
          res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
          res.on("error", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
        }),
    );
    answer.catch(() => {});
    if (o.body !== undefined) req.write(o.body);
    if (o.end !== false) req.end();
    else req.flushHeaders();
    return { req, head, answer };
  };

  beforeAll(async () => {
    w = await apiWorld({
      watchPollMs: 100,
      env: {
        PORCHLIGHT_API_MAX_WATCHES_PER_TOKEN: "2",
        PORCHLIGHT_API_MAX_WATCHES: "3",
        PORCHLIGHT_API_MAX_BODY_BYTES: String(MIB),
        PORCHLIGHT_API_MAX_PENDING_BYTES: String(2 * MIB),
        PORCHLIGHT_API_BODY_IDLE_MS: "1500",
        PORCHLIGHT_API_BODY_MS: "60000",
        PORCHLIGHT_API_CACHED_CALLERS: "1",
      },
    });
    expect((await w.kubectl("alice", ["apply", "-f", "-"], { stdin: DRAFT })).code).toBe(0);
  }, 120_000);
  afterAll(async () => {
    for (const r of opened) r.destroy();
    await w?.stop();
  });

  it("refuses watches past the cap per token and in all with 429 and a Status, and still answers", async () => {
    const watch = (token: string) => open(`${REVISIONS}?watch=true`, { token });
    const alice = [watch(w.alice), watch(w.alice)];
    for (const x of alice) expect((await x.head).statusCode).toBe(200);
    const third = await watch(w.alice).answer;
    expect(third.status).toBe(429);
    expect(third.headers["retry-after"]).toBe("5");
    expect(status(third)).toMatchObject({ kind: "Status", reason: "TooManyRequests", code: 429 });
    expect(status(third).message).toMatch(/PORCHLIGHT_API_MAX_WATCHES_PER_TOKEN=2/);
    const bob = watch(w.bob);
    expect((await bob.head).statusCode).toBe(200);
    const carol = await watch(w.carol).answer;
    expect(carol.status).toBe(429);
    expect(status(carol).message).toMatch(/PORCHLIGHT_API_MAX_WATCHES=3/);
    // the server answers everything else meanwhile
    expect((await w.request("/healthz")).status).toBe(200);
    expect((await w.request(REVISIONS, { token: w.carol })).status).toBe(200);
    // a watch closed gives its slot back
    alice[0]?.req.destroy();
    await until(
      "a watch slot freed",
      async () =>
        (await open(`${REVISIONS}?watch=true&timeoutSeconds=1`, { token: w.carol }).answer).status === 200,
    );
    for (const x of [...alice, bob]) x.req.destroy();
  }, 120_000);

  it("stops calling GitHub for a watch once its client has gone", async () => {
    const calls = () => w.forge.requestLog.count({ login: "bob" });
    const watching = open(`${REVISIONS}?watch=true`, { token: w.bob });
    expect((await watching.head).statusCode).toBe(200);
    // it polls: bob's requests grow while the watch is open
    const before = calls();
    await until("the watch polls GitHub", () => calls() > before + 10);
    watching.req.destroy();
    // its poll in flight ends with it; then nothing more is asked as bob
    let last = calls();
    let still = 0;
    await until("bob's requests stop", () => {
      const now = calls();
      still = now === last ? still + 1 : 0;
      last = now;
      return still >= 20;
    });
    const after = calls();
    await new Promise((r) => setTimeout(r, 1000));
    expect(calls()).toBe(after);
  }, 60_000);

  it("cancels a watch's poll in flight when its client goes: its request to GitHub ends with it", async () => {
    const watching = open(`${REVISIONS}?watch=true`, { token: w.bob });
    expect((await watching.head).statusCode).toBe(200);
    // the next poll is held at its first read of a repository, as a slow GitHub would hold it
    const held = w.forge.faults.add({ route: "/repos/{owner}/{repo}", method: "GET", hang: true });
    try {
      await until("a poll is held", () => w.forge.faults.holding(held) > 0);
      watching.req.destroy();
      // the server gives up that request (the forge sees its client go) rather than wait for it
      await until("the held poll is cancelled", () => w.forge.faults.holding(held) === 0, 10_000);
    } finally {
      w.forge.faults.remove(held);
    }
  }, 60_000);

  it("answers a token GitHub refuses 401 before reading its body, and makes no folder for it", async () => {
    const folders = () => readdirSync(w.cacheRoot);
    const had = folders();
    // a large body declared, a few bytes of it sent, the rest never: the answer comes all the same
    const large = open(REVISIONS, {
      token: "not-a-token",
      method: "POST",
      headers: { "content-type": "application/json", "content-length": String(8 * 1024 * KIB) },
      body: "{",
      end: false,
    });
    const refused = await large.answer;
    expect(refused.status).toBe(401);
    expect(status(refused)).toMatchObject({ reason: "Unauthorized", code: 401 });
    // a small body that is no object: still 401, not the body judged
    const small = await w.request(REVISIONS, {
      token: "garbage",
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "[1]",
    });
    expect(small.status).toBe(401);
    for (let i = 0; i < 20; i++)
      expect((await w.request(REVISIONS, { token: `unknown-${i}` })).status).toBe(401);
    // (a folder of the callers before may have gone meanwhile: only the most recent is kept)
    expect(folders().filter((f) => !had.includes(f))).toEqual([]);
  }, 60_000);

  it("cuts a body that stops arriving, refuses one over the limit, and bodies past the budget in flight", async () => {
    const post = (declared: number, first: string, end = false) =>
      open(REVISIONS, {
        token: w.alice,
        method: "POST",
        headers: { "content-type": "application/json", "content-length": String(declared) },
        body: first,
        end,
      });
    const idle = await post(1000, '{"kind":').answer;
    expect(idle.status).toBe(408);
    expect(status(idle)).toMatchObject({ reason: "Timeout", code: 408 });
    expect(status(idle).message).toMatch(/PORCHLIGHT_API_BODY_IDLE_MS/);
    const large = await post(MIB + 1, "{").answer;
    expect(large.status).toBe(413);
    expect(status(large).message).toMatch(
      /1048576, the limit of this server \(PORCHLIGHT_API_MAX_BODY_BYTES\)/,
    );
    // two bodies of nearly 1 MiB held open (a byte now and then, so that neither is idle) take the budget;
    // one the server cut meanwhile (a machine so busy that no byte came within the idle bound) is sent again
    const hold = () => {
      const h = { ...post(MIB, " ".repeat(MIB - 64 * KIB)), cut: false };
      h.answer.then(
        () => {
          h.cut = true;
        },
        () => {
          h.cut = true;
        },
      );
      return h;
    };
    const held = [hold(), hold()];
    const trickle = setInterval(() => {
      for (const h of held) if (!h.cut) h.req.write(" ");
    }, 200);
    try {
      // the server has both bodies' bytes once a third, of 16 KiB, no longer fits
      await until("the budget is taken", async () => {
        held.forEach((h, i) => {
          if (h.cut) held[i] = hold();
        });
        const third = await post(256 * KIB, `${" ".repeat(256 * KIB - 2)}{}`, true).answer;
        if (third.status !== 429) return false;
        expect(status(third)).toMatchObject({ reason: "TooManyRequests", code: 429 });
        expect(status(third).message).toMatch(/2097152 bytes, PORCHLIGHT_API_MAX_PENDING_BYTES/);
        return true;
      });
      expect((await w.request("/healthz")).status).toBe(200);
    } finally {
      clearInterval(trickle);
      for (const h of held) h.req.destroy();
    }
  }, 60_000);

  it("answers bad names, paths and bodies 400, naming nothing of the server", async () => {
    const deep = `{"metadata":{"labels":${"[".repeat(200_000)}${"]".repeat(200_000)}}}`;
    const cases: [string, Parameters<ApiWorld["request"]>[1]][] = [
      [`${REVISIONS}/blueprints.a%zz`, {}],
      [`${REVISIONS}/blueprints%00x`, {}],
      [`${REVISIONS}/${"a/".repeat(2100)}`, {}],
      [`${REVISIONS}/${"a%2F".repeat(2100)}`, {}],
      [
        `${REVISIONS}/blueprints.kept.v1?fieldValidation=Ignore`,
        { method: "PATCH", headers: { "content-type": "application/merge-patch+json" }, body: deep },
      ],
    ];
    for (const [path, o] of cases) {
      const r = await w.request(path, { token: w.alice, ...o });
      expect({ path: path.slice(0, 80), status: r.status }).toEqual({ path: path.slice(0, 80), status: 400 });
      const s = status(r);
      expect(s).toMatchObject({ kind: "Status", reason: "BadRequest", code: 400 });
      expect(s.message).not.toContain(tmpdir());
      expect(s.message).not.toContain(w.cacheRoot);
      expect(s.message).not.toMatch(/ at .*\.(ts|js):\d+/);
    }
  }, 60_000);

  it("refuses a watch from a resourceVersion it cannot have given 400, an unknown one 410", async () => {
    const watch = (rv: string) => `${REVISIONS}?watch=true&resourceVersion=${rv}`;
    for (const rv of ["%zz", "abc", "12345", "0123456789abcdef0", "0123456789ABCDEF"]) {
      const r = await w.request(watch(rv), { token: w.alice });
      expect({ rv, status: r.status }).toEqual({ rv, status: 400 });
      expect(status(r)).toMatchObject({ kind: "Status", reason: "BadRequest", code: 400 });
      expect(status(r).message).toContain("is not one this server gives");
    }
    // well-formed and unknown: the stream opens and says so (410 Expired), as before
    const unknown = open(watch("0123456789abcdef"), { token: w.alice });
    expect((await unknown.head).statusCode).toBe(200);
    const a = await unknown.answer;
    expect(a.body).toContain('"code":410');
  });

  it("refuses an apply body nested past the limit 400, naming the limit, before the parser overflows", async () => {
    for (const body of [
      "[".repeat(100_000),
      `metadata: {labels: ${"{a: ".repeat(101)}1${"}".repeat(101)}}`,
    ]) {
      const r = await w.request(`${REVISIONS}/blueprints.kept.v1?fieldManager=kubectl`, {
        token: w.alice,
        method: "PATCH",
        headers: { "content-type": "application/apply-patch+yaml" },
        body,
      });
      expect(r.status).toBe(400);
      expect(status(r)).toMatchObject({ kind: "Status", reason: "BadRequest", code: 400 });
      expect(status(r).message).toContain("more than 100 levels deep");
      expect(status(r).message).not.toContain("call stack");
    }
  });

  it("keeps the folders of the most recently seen callers only", async () => {
    for (const token of [w.alice, w.bob, w.carol])
      expect((await w.request(REVISIONS, { token })).status).toBe(200);
    await until("one caller's folder left", () => readdirSync(w.cacheRoot).length <= 1).catch((e) => {
      throw new Error(
        `${(e as Error).message}: ${JSON.stringify(readdirSync(w.cacheRoot).map((d) => [d, readdirSync(`${w.cacheRoot}/${d}`, { recursive: true }).length]))}`,
      );
    });
  }, 60_000);
});
