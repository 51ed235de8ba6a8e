import { PorchError, type PorchErrorKind, porchErrorOf } from "../porch/errors.js";
import { ApiError, type StatusReason } from "./status.js";

/** Each kind of the engine's failures as Kubernetes' reason (its HTTP code is the reason's own). */
function reasonOf(kind: PorchErrorKind): StatusReason | undefined {
  switch (kind) {
    case "not-found":
      return "NotFound";
    case "already-exists":
      return "AlreadyExists";
    case "conflict":
      return "Conflict";
    case "forbidden":
      return "Forbidden";
    case "unauthorized":
      return "Unauthorized";
    case "invalid":
      return "Invalid";
    case "bad-request":
      return "BadRequest";
    case "too-large":
      return "RequestEntityTooLarge";
    case "rate-limited":
      return "TooManyRequests";
    case "unavailable":
      return "InternalError";
    case "internal":
      return undefined;
  }
}

/**
 * The engine's failure (or GitHub's or git's, through the engine's one translation) as the API answers
 * it: a metav1.Status of the kind's reason with Porch's message, the hint after it in parentheses (not
 * after a not-found: Kubernetes' NotFound says `<resource> "<name>" not found` and no more), a refusal of
 * the caller's token by git in the API's words (git's own line names no request of theirs). An internal
 * failure, and anything that is not the engine's, passes as is: the server logs it and answers a bare 500.
 */
export function apiErrorOfPorch(e: unknown): unknown {
  if (e instanceof ApiError) return e;
  const p = porchErrorOf(e);
  if (!(p instanceof PorchError)) return p;
  const reason = reasonOf(p.kind);
  if (reason === undefined) return p;
  const message =
    p.more.origin?.from === "git"
      ? "GitHub refused the caller's token for this git operation"
      : p.hint && p.kind !== "not-found"
        ? `${p.message} (${p.hint})`
        : p.message;
  const causes = p.more.causes;
  const retry = p.more.retryAfter;
  if (causes === undefined && retry === undefined) return new ApiError(reason, message);
  return new ApiError(reason, message, {
    ...(causes ? { causes } : {}),
    ...(retry === undefined ? {} : { retryAfterSeconds: retry }),
  });
}

/**
 * A lifecycle operation's failure (propose, reject, approve, propose-delete, delete) as the API answers
 * it: the kind's reason with the engine's message alone, as porchctl words the refusal (its hint names
 * porchlight's commands, no help to a kubectl user); what GitHub or git refused, and anything not the
 * engine's, as apiErrorOfPorch answers it.
 */
export function apiErrorOfOperation(e: unknown): unknown {
  const p = porchErrorOf(e);
  if (!(p instanceof PorchError) || p.more.origin !== undefined) return apiErrorOfPorch(e);
  const reason = reasonOf(p.kind);
  return reason === undefined ? p : new ApiError(reason, p.message);
}
