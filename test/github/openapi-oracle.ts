import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import nock from "nock";
import { afterAll, afterEach, beforeAll, expect } from "vitest";
import { installationPort } from "../../src/github/installation.js";
import { tokenOctokit } from "../../src/github/octokit.js";
import type { InstallationPort, RepoPort } from "../../src/github/port.js";

/**
 * GitHub's own documentation as a test oracle: the example responses and request schemas
 * `@octokit/openapi` publishes for each operation (api.github.com's OpenAPI description).
 */
interface Schema extends Ref {
  type?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  enum?: unknown[];
  oneOf?: Schema[];
  anyOf?: Schema[];
}
interface Ref {
  $ref?: string;
}
interface Response {
  content?: Record<string, { examples?: Record<string, Ref & { value?: unknown }>; schema?: Schema }>;
}
interface Operation {
  responses: Record<string, Ref & Response>;
  requestBody?: Response;
}
interface Spec {
  paths: Record<string, Record<string, Operation>>;
  components: {
    responses: Record<string, Response>;
    examples: Record<string, { value: unknown }>;
    schemas: Record<string, Schema>;
  };
}
const require = createRequire(import.meta.url);
const spec = require("@octokit/openapi/generated/api.github.com.json") as Spec;
const last = (ref: string) => ref.split("/").pop() as string;

export const API = "https://api.github.com";

function operation(method: string, path: string): Operation {
  const op = spec.paths[path]?.[method.toLowerCase()];
  if (!op) throw new Error(`no operation ${method} ${path} in GitHub's OpenAPI description`);
  return op;
}

/** The documented example of `method path`'s `status` response. */
function example(method: string, path: string, status = "200"): unknown {
  let response: Ref & Response = operation(method, path).responses[status] ?? {};
  if (response.$ref) response = spec.components.responses[last(response.$ref)] ?? {};
  const examples = response.content?.["application/json"]?.examples ?? {};
  const first = Object.values(examples)[0];
  if (!first) throw new Error(`no example for ${method} ${path} ${status}`);
  return first.$ref ? spec.components.examples[last(first.$ref)]?.value : first.value;
}

const resolveSchema = (s: Schema): Schema => (s.$ref ? (spec.components.schemas[last(s.$ref)] ?? {}) : s);

/**
 * What is wrong with `body` as a request to `method path`, by the documented schema: a field GitHub
 * does not know, a required one missing, a value outside an enum, a wrong JSON type. Empty when
 * the request is one GitHub documents. (Alternatives, oneOf/anyOf, are taken as documented.)
 */
export function requestProblems(method: string, path: string, body: unknown): string[] {
  const schema = operation(method, path).requestBody?.content?.["application/json"]?.schema;
  if (!schema) return body === undefined ? [] : ["GitHub documents no request body here"];
  const problems: string[] = [];
  const check = (raw: Schema, value: unknown, at: string): void => {
    const s = resolveSchema(raw);
    if (s.oneOf || s.anyOf || value === null) return;
    if (s.enum && !s.enum.includes(value))
      problems.push(`${at}: ${JSON.stringify(value)} is not one of ${s.enum}`);
    const type = Array.isArray(value) ? "array" : typeof value === "number" ? "integer" : typeof value;
    if (s.type && s.type !== type && !(s.type === "number" && type === "integer"))
      problems.push(`${at}: a ${type}, documented as ${s.type}`);
    if (type === "array" && s.items) {
      for (const [i, v] of (value as unknown[]).entries()) check(s.items, v, `${at}[${i}]`);
    }
    if (type === "object" && s.properties) {
      const object = value as Record<string, unknown>;
      for (const key of s.required ?? [])
        if (!(key in object)) problems.push(`${at}.${key}: required, missing`);
      for (const [key, v] of Object.entries(object)) {
        const property = s.properties[key];
        if (!property) problems.push(`${at}.${key}: not a documented field`);
        else check(property, v, `${at}.${key}`);
      }
    }
  };
  check(schema, body, "body");
  return problems;
}

/**
 * Answers `method url` once with GitHub's example for the operation `path` documents, recording the
 * request body in `sent` (when given) so a test can check it against the documented schema.
 */
export function documented(
  method: "GET" | "POST" | "PATCH" | "PUT" | "DELETE",
  url: string,
  path: string,
  status = "200",
  sent?: unknown[],
) {
  return nock(API)
    .intercept(url, method, (body: unknown) => {
      sent?.push(body === "" ? undefined : body);
      return true;
    })
    .query(true)
    .reply(Number(status), status === "204" ? "" : (example(method, path, status) as nock.Body), {
      "content-type": "application/json; charset=utf-8",
    });
}

/**
 * The Octokit adapter for octocat/Hello-World (the repository GitHub's examples describe), with the
 * network closed: an unexpected request fails the test, and so does an expected one never made.
 */
export function documentedGitHub(): { installation: () => InstallationPort; port: () => RepoPort } {
  const unmatched: string[] = [];
  let cache = "";
  let installation: InstallationPort | undefined;
  let port: RepoPort | undefined;
  const onNoMatch = (req: { method?: string; path?: string; options?: { path?: string } }) => {
    unmatched.push(`${req.method ?? ""} ${req.path ?? req.options?.path ?? String(req)}`);
  };
  beforeAll(() => {
    nock.disableNetConnect();
    nock.emitter.on("no match", onNoMatch);
    cache = mkdtempSync(join(tmpdir(), "openapi-examples-"));
    installation = installationPort(
      tokenOctokit("ghs_example", { writeIntervalMs: 0, rateLimitRetries: 0, retryAfterUnitMs: 0 }),
      cache,
    );
    port = installation.repo({
      id: { owner: "octocat", repo: "Hello-World" },
      fullName: "octocat/Hello-World",
      topics: [],
      defaultBranch: "master",
      cloneUrl: "https://github.com/octocat/Hello-World.git",
      archived: false,
    });
  });
  afterEach(() => {
    const pending = nock.pendingMocks();
    nock.cleanAll();
    expect({ unmatched: unmatched.splice(0), pending }).toEqual({ unmatched: [], pending: [] });
  });
  afterAll(() => {
    nock.enableNetConnect();
    nock.emitter.removeListener("no match", onNoMatch);
    rmSync(cache, { recursive: true, force: true });
  });
  return { installation: () => installation as InstallationPort, port: () => port as RepoPort };
}
