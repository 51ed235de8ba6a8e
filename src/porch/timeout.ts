/** "10s", "1.5s", "500ms": a duration as a person reads it in a message. */
function formatDuration(ms: number): string {
  return ms < 1000 ? `${ms}ms` : `${Number((ms / 1000).toFixed(3))}s`;
}

/** Thrown when one repository did not answer within the request timeout. */
export class RequestTimeout extends Error {
  override name = "RequestTimeout";
}

/**
 * `work` given at most `ms` (no limit when undefined): its signal is aborted at the deadline, and the
 * promise fails then with a RequestTimeout saying `what` did not answer, whether or not `work` heeds it.
 */
export async function withTimeout<T>(
  ms: number | undefined,
  what: string,
  work: (signal: AbortSignal | undefined) => Promise<T>,
): Promise<T> {
  if (ms === undefined) return work(undefined);
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(
        new RequestTimeout(
          `${what} did not answer within ${formatDuration(ms)} (--request-timeout, PORCHLIGHT_REQUEST_TIMEOUT)`,
        ),
      );
    }, ms);
  });
  try {
    return await Promise.race([work(controller.signal), deadline]);
  } finally {
    clearTimeout(timer);
  }
}
