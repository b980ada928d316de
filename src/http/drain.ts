/**
 * Stopping a server without losing work, for both servers (`serve`, `mcp --http`): no new
 * request is taken, the ones in flight get `gateway.drainMs` to finish, those still running
 * then are stopped and answered CLOSING (never a reset connection or an empty stream), and only
 * then are the connections closed. A second SIGTERM/SIGINT ends the wait at once.
 */
import { HttpError } from "../errors.js";

/** After the cut, how long the CLOSING answers get to go out before every connection is closed. */
export const CUT_GRACE_MS = 2_000;
/** How often a drain looks whether its work has settled. */
const POLL_MS = 10;

/** The answer to a request the server cannot take or finish because it is stopping. */
export function closingError(detail: string): HttpError {
  return new HttpError("CLOSING", `The server is shutting down: ${detail}`, { "retry-after": "1" });
}

/**
 * Resolves true once `settled()` holds, false when `ms` pass or `signal` aborts first (a
 * second signal: the operator does not want to wait).
 */
async function settleWithin(settled: () => boolean, ms: number, signal?: AbortSignal): Promise<boolean> {
  const deadline = performance.now() + ms;
  while (!settled()) {
    const left = deadline - performance.now();
    if (left <= 0 || signal?.aborted) return false;
    await pause(Math.min(POLL_MS, left), signal);
  }
  return true;
}

/**
 * The drain and its end, for both servers: waits up to `drainMs` (or until `signal` aborts) for
 * `settled`; when it does not hold by then, `cut` stops what still runs and its CLOSING answers
 * get CUT_GRACE_MS to go out.
 */
export async function drainThenCut(settled: () => boolean, drainMs: number, signal: AbortSignal | undefined, cut: () => void): Promise<void> {
  if (await settleWithin(settled, drainMs, signal)) return;
  cut();
  await settleWithin(settled, CUT_GRACE_MS);
}

function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}
