/**
 * Kubernetes' failure answers: a `metav1.Status` with the HTTP code and the reason clients switch on
 * (`kubectl` prints its message; client libraries test the reason: NotFound, AlreadyExists, Conflict…).
 */
export type StatusReason =
  | "BadRequest"
  | "Unauthorized"
  | "Forbidden"
  | "NotFound"
  | "AlreadyExists"
  | "Conflict"
  | "Expired"
  | "Invalid"
  | "MethodNotAllowed"
  | "NotAcceptable"
  | "UnsupportedMediaType"
  | "RequestEntityTooLarge"
  | "TooManyRequests"
  | "Timeout"
  | "ServerTimeout"
  | "InternalError";

const CODES: Record<StatusReason, number> = {
  BadRequest: 400,
  Unauthorized: 401,
  Forbidden: 403,
  NotFound: 404,
  AlreadyExists: 409,
  Conflict: 409,
  Expired: 410,
  Invalid: 422,
  MethodNotAllowed: 405,
  NotAcceptable: 406,
  UnsupportedMediaType: 415,
  RequestEntityTooLarge: 413,
  TooManyRequests: 429,
  Timeout: 504,
  // the API server's: a write it could not complete for now (its storage kept moving), retried by clients
  ServerTimeout: 500,
  InternalError: 500,
};

/** One field's problem in an Invalid answer (`details.causes`). */
interface StatusCause {
  reason: string;
  message: string;
  field: string;
}

/** What the Status names: the object the request was about. */
export interface StatusDetails {
  name?: string;
  uid?: string;
  group?: string;
  kind?: string;
  causes?: StatusCause[];
  /** When to try again (a 429: what clients wait before they do; also sent as `Retry-After`). */
  retryAfterSeconds?: number;
}

/** A failure the API answers as a Status; anything else thrown is an InternalError. */
export class ApiError extends Error {
  readonly code: number;
  constructor(
    readonly reason: StatusReason,
    message: string,
    readonly details?: StatusDetails,
    /** The HTTP code, where it is not the reason's own (a body too slow: 408 with reason Timeout). */
    code?: number,
  ) {
    super(message);
    this.code = code ?? CODES[reason];
  }
}

/** The metav1.Status object of a failure. */
export function statusObject(err: ApiError): Record<string, unknown> {
  return {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message: err.message,
    reason: err.reason,
    ...(err.details ? { details: err.details } : {}),
    code: err.code,
  };
}

/** The Status of a success without an object (a delete answered so). */
export function successStatus(details: StatusDetails): Record<string, unknown> {
  return { kind: "Status", apiVersion: "v1", metadata: {}, status: "Success", details };
}

/** A resource named in a message as the API server names it: `packagerevisions.porch.kpt.dev`. */
function qualified(resource: string, group: string): string {
  return group ? `${resource}.${group}` : resource;
}

/** 404 in the API server's words: `packagerevisions.porch.kpt.dev "x" not found`. */
export function notFound(resource: string, group: string, name: string, why?: string): ApiError {
  return new ApiError(
    "NotFound",
    `${qualified(resource, group)} "${name}" not found${why ? `: ${why}` : ""}`,
    { name, group, kind: resource },
  );
}

/** 409 on update: the object changed since the version the client sent (optimistic locking). */
export function conflict(resource: string, group: string, name: string, why?: string): ApiError {
  return new ApiError(
    "Conflict",
    `Operation cannot be fulfilled on ${qualified(resource, group)} "${name}": ${why ?? "the object has been modified; please apply your changes to the latest version and try again"}`,
    { name, group, kind: resource },
  );
}
