import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Octokit } from "@octokit/rest";
import { Ajv, type ValidateFunction } from "ajv";
import addFormatsModule from "ajv-formats";

const require = createRequire(import.meta.url);
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => void;

type Json = Record<string, unknown>;

/** One response a client saw: what the contract is checked against. */
export interface Observed {
  method: string;
  template: string;
  status: number;
  body: unknown;
  /** The response's content-type; a custom media type (raw bytes) has no JSON schema to check. */
  contentType?: string;
}

/**
 * GitHub's published contracts: response schemas from the official OpenAPI description
 * (@octokit/openapi, api.github.com) and webhook payload schemas (@octokit/webhooks-schemas).
 * The 13 MB description is parsed once; only the schemas actually used are compiled.
 */
export class Contract {
  private readonly ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false });
  private readonly cache = new Map<string, ValidateFunction>();
  private readonly paths: Record<string, Record<string, Json>>;
  private readonly responses: Record<string, Json>;
  private readonly webhookDefs: Set<string>;

  constructor() {
    addFormats(this.ajv);
    const file = require.resolve("@octokit/openapi/generated/api.github.com.json");
    // Point component refs at one shared schema so each operation compiles only what it uses.
    const raw = readFileSync(file, "utf8").replace(/"\$ref":\s*"#\/components\//g, (m) =>
      m.replace("#/", "gh#/"),
    );
    const doc = openApiToJsonSchema(JSON.parse(raw)) as {
      paths: Record<string, Record<string, Json>>;
      components: Json;
    };
    this.paths = doc.paths;
    this.responses = doc.components.responses as Record<string, Json>;
    this.ajv.addSchema({ $id: "gh", components: doc.components });
    const wh = JSON.parse(readFileSync(require.resolve("@octokit/webhooks-schemas/schema.json"), "utf8")) as {
      definitions: Json;
    };
    this.webhookDefs = new Set(Object.keys(wh.definitions));
    this.ajv.addSchema({ $id: "wh", definitions: wh.definitions });
  }

  private compile(key: string, schema: unknown): ValidateFunction {
    let v = this.cache.get(key);
    if (!v) {
      v = this.ajv.compile(schema as Json);
      this.cache.set(key, v);
    }
    return v;
  }

  private errors(v: ValidateFunction, body: unknown, label: string): string[] {
    if (v(body)) return [];
    return (v.errors ?? [])
      .slice(0, 40)
      .map((e) => `${label}: ${e.instancePath || "/"} ${e.message} ${JSON.stringify(e.params)}`);
  }

  /** Problems with one response, empty when it matches GitHub's documented schema for that status. */
  checkResponse(o: Observed): string[] {
    const label = `${o.method} ${o.template} ${o.status}`;
    if (o.contentType !== undefined && !/json/i.test(o.contentType)) {
      return typeof o.body === "string" ? [] : [`${label}: a ${o.contentType} body that is not text`];
    }
    const op = this.paths[documented(o)]?.[o.method.toLowerCase()] as
      | { responses?: Record<string, Json> }
      | undefined;
    if (!op?.responses) return this.checkEnterpriseOnly(o, label);
    let resp = op.responses[String(o.status)];
    if (!resp) {
      if (o.status >= 400) return this.checkError(o, label);
      return [`${label}: status not documented (documented: ${Object.keys(op.responses).join(", ")})`];
    }
    const ref = resp.$ref;
    if (typeof ref === "string") resp = this.responses[ref.split("/").at(-1)!] ?? {};
    const schema = (resp.content as Record<string, { schema?: unknown }> | undefined)?.["application/json"]
      ?.schema;
    if (!schema) return o.body === undefined || o.body === "" || o.status === 204 ? [] : [];
    return this.errors(this.compile(`${o.method} ${documented(o)} ${o.status}`, schema), o.body, label);
  }

  /**
   * An operation only GitHub Enterprise Server has (its site administrator's API, which the forge serves
   * for its `admin`): the status must be one GHES 3.19's description documents for it.
   */
  private checkEnterpriseOnly(o: Observed, label: string): string[] {
    const file = require.resolve("@octokit/openapi/generated/ghes-3.19.json");
    const paths = (JSON.parse(readFileSync(file, "utf8")) as { paths: Record<string, Record<string, Json>> })
      .paths;
    const op = paths[o.template]?.[o.method.toLowerCase()] as
      | { responses?: Record<string, Json> }
      | undefined;
    if (!op?.responses) return [`${label}: operation not in GitHub's OpenAPI description (nor GHES's)`];
    if (op.responses[String(o.status)] || o.status >= 400) return [];
    return [`${label}: status not documented by GHES (documented: ${Object.keys(op.responses).join(", ")})`];
  }

  private checkError(o: Observed, label: string): string[] {
    const name = o.status === 422 ? "validation-error" : "basic-error";
    return this.errors(this.compile(name, { $ref: `gh#/components/schemas/${name}` }), o.body, label);
  }

  /** Problems with one webhook payload against `<event>$<action>` (or `<event>$event`). */
  checkWebhook(event: string, action: string | null, payload: unknown): string[] {
    const def =
      action && this.webhookDefs.has(`${event}$${action}`) ? `${event}$${action}` : `${event}$event`;
    if (!this.webhookDefs.has(def)) return [`webhook ${event}.${action}: no schema ${def}`];
    return this.errors(
      this.compile(`wh:${def}`, { $ref: `wh#/definitions/${def}` }),
      payload,
      `webhook ${def}`,
    );
  }
}

/**
 * OpenAPI 3.0's `nullable: true` without a `type` (beside `allOf`/`$ref`) means "or null";
 * ajv only understands it next to `type`, so spell those out as `anyOf [..., null]`.
 */
function openApiToJsonSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(openApiToJsonSchema);
  if (!node || typeof node !== "object") return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node)) out[k] = openApiToJsonSchema(v);
  if (out.nullable === true && Array.isArray(out.enum) && !out.enum.includes(null))
    out.enum = [...out.enum, null];
  if (out.nullable === true && out.type === undefined) {
    const { nullable: _, ...rest } = out;
    return { anyOf: [rest, { type: "null" }] };
  }
  return out;
}

/** Records every response an Octokit client gets (templates as Octokit names them). */
export function observe(octokit: Octokit, into: Observed[]): void {
  octokit.hook.wrap("request", async (request, options) => {
    const template = String(options.url);
    const method = String(options.method);
    try {
      const res = await request(options);
      const contentType = res.headers["content-type"];
      if (!template.startsWith("http")) {
        into.push({
          method,
          template,
          status: res.status,
          body: res.data,
          ...(contentType ? { contentType: String(contentType) } : {}),
        });
      }
      return res;
    } catch (err) {
      const e = err as { status?: number; response?: { data?: unknown } };
      if (e.status && !template.startsWith("http")) {
        into.push({ method, template, status: e.status, body: e.response?.data });
      }
      throw err;
    }
  });
}

/**
 * The documented operation an answer is checked against. GitHub still serves `GET /git/refs/{ref}`, the
 * older form and the `url` of every ref it answers, though its description no longer lists it: one ref
 * there is the documented `GET /git/ref/{ref}`'s answer, several are `matching-refs`'.
 */
function documented(o: Observed): string {
  if (o.method !== "GET" || o.template !== "/repos/{owner}/{repo}/git/refs/{ref}") return o.template;
  return Array.isArray(o.body)
    ? "/repos/{owner}/{repo}/git/matching-refs/{ref}"
    : "/repos/{owner}/{repo}/git/ref/{ref}";
}
