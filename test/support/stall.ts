/**
 * "Answers, and the event loop was not blocked for more than N ms": the longest event-loop
 * delay seen while `work` runs, measured with perf_hooks. Tests give generous bounds (the
 * speed goals live in bench/stall); what they catch is the seconds-long stall of old.
 */
import { monitorEventLoopDelay } from "node:perf_hooks";

export async function maxStallMs<T>(work: () => Promise<T> | T): Promise<{ value: T; maxStallMs: number; wallMs: number }> {
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  histogram.enable();
  const started = performance.now();
  // A synchronous stall shows up as the gap before this timer fires, so the work starts on a
  // later turn and a timer is pending while it runs.
  await new Promise((resolve) => setImmediate(resolve));
  const value = await work();
  await new Promise((resolve) => setTimeout(resolve, 2));
  const wallMs = performance.now() - started;
  histogram.disable();
  return { value, maxStallMs: Math.max(histogram.max / 1e6, 0), wallMs };
}
