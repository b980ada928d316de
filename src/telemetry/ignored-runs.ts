/**
 * The runs a view of the traffic leaves out, start to end: those of one tenant (the admin API's
 * own runs, which are the operator's tools, not traffic). Live telemetry and the metrics both
 * take them out the same way. A run is known by its run_start's tenant; its runId is kept while
 * it runs, and past `max` the oldest is given up (bounded whatever starts and never ends).
 */
import { LruMap } from "../validation/lru.js";
import type { SessionEvent } from "./types.js";

export class IgnoredRuns {
  readonly #running: LruMap<string, true>;

  constructor(
    private readonly tenant: string | undefined,
    max: number,
  ) {
    this.#running = new LruMap(max);
  }

  /** Whether `event` is of an ignored run: a run_start of the tenant begins one, its run_end ends it. */
  has(event: SessionEvent): boolean {
    if (this.tenant === undefined) return false;
    if (event.type === "run_start" && event.tenant === this.tenant) {
      this.#running.set(event.runId, true);
      return true;
    }
    if (!this.#running.has(event.runId)) return false;
    if (event.type === "run_end") this.#running.delete(event.runId);
    return true;
  }
}
