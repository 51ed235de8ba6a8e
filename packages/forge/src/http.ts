import type { IncomingMessage } from "node:http";
import { gunzipSync } from "node:zlib";

/** GitHub's documentation root; error bodies point here unless a route names a closer page. */
const DOCS = "https://docs.github.com/rest";

/** One entry of a 422's `errors` array, as GitHub sends it. */
export interface FieldError {
  resource?: string;
  field?: string;
  code: string;
  message?: string;
  value?: string | number | null;
}

/** An error a handler throws to answer with GitHub's error shape and status. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly extra: {
      errors?: (FieldError | string)[];
      headers?: Record<string, string>;
      documentationUrl?: string;
    } = {},
  ) {
    super(message);
    this.name = "ApiError";
  }
}

export const notFound = (): ApiError => new ApiError(404, "Not Found");
const validationFailed = (errors: FieldError[], message = "Validation Failed"): ApiError =>
  new ApiError(422, message, { errors });
export const missingField = (resource: string, field: string): ApiError =>
  validationFailed([{ resource, field, code: "missing_field" }]);
export const invalidField = (resource: string, field: string, value?: string | number | null): ApiError =>
  validationFailed([{ resource, field, code: "invalid", ...(value === undefined ? {} : { value }) }]);
/** A 422 whose errors array carries a single custom message (GitHub's usual shape for business rules). */
export const customError = (resource: string, message: string, field?: string): ApiError =>
  validationFailed([{ resource, code: "custom", ...(field ? { field } : {}), message }]);

/** The JSON body GitHub sends with an error status. */
export function errorBody(err: ApiError): Record<string, unknown> {
  return {
    message: err.message,
    documentation_url: err.extra.documentationUrl ?? DOCS,
    ...(err.extra.errors ? { errors: err.extra.errors } : {}),
    status: String(err.status),
  };
}

/** What a handler answers; the server turns it into an HTTP response. */
export interface Reply {
  status: number;
  /** JSON, or a Buffer sent as it is (with the content-type the route sets in `headers`). */
  body?: unknown;
  headers?: Record<string, string>;
}

export const ok = (body: unknown, headers?: Record<string, string>): Reply => ({
  status: 200,
  body,
  ...(headers ? { headers } : {}),
});
export const created = (body: unknown): Reply => ({ status: 201, body });
export const noContent = (): Reply => ({ status: 204 });

/** Reads a request body whole, un-gzipping it when the client says so. */
export async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const raw = Buffer.concat(chunks);
  return req.headers["content-encoding"] === "gzip" ? gunzipSync(raw) : raw;
}

/** Parses a JSON request body; GitHub answers 400 "Problems parsing JSON" for bad JSON. */
export function parseJson(raw: Buffer): Record<string, unknown> {
  if (raw.length === 0) return {};
  try {
    const v = JSON.parse(raw.toString("utf8")) as unknown;
    if (v === null || typeof v !== "object" || Array.isArray(v)) {
      throw new ApiError(400, "Body should be a JSON object");
    }
    return v as Record<string, unknown>;
  } catch (err) {
    if (err instanceof ApiError) throw err;
    throw new ApiError(400, "Problems parsing JSON");
  }
}

/** GitHub's timestamp format: ISO 8601 in UTC without milliseconds. */
export function isoTime(d: Date): string {
  return `${d.toISOString().slice(0, 19)}Z`;
}

/** A GitHub-style global node id for an object of `type` with database id `id`. */
export function nodeId(type: string, id: number | string): string {
  return Buffer.from(`0${type.length}:${type}${id}`).toString("base64");
}
