/**
 * How busy the event loop was lately: the share of wall time it spent running callbacks
 * (`performance.eventLoopUtilization`) over the last completed window of WINDOW_MS, read again at
 * most once a window so that asking is cheap.
 */
import { performance } from "node:perf_hooks";

const WINDOW_MS = 100;

export class LoopLoad {
  #mark = performance.eventLoopUtilization();
  #at = performance.now();
  #busy = 0;

  /** 0 (idle) to 1 (never idle). */
  busy(): number {
    const now = performance.now();
    if (now - this.#at >= WINDOW_MS) {
      const next = performance.eventLoopUtilization();
      this.#busy = performance.eventLoopUtilization(next, this.#mark).utilization;
      this.#mark = next;
      this.#at = now;
    }
    return this.#busy;
  }
}
