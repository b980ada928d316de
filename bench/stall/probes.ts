/**
 * The two instruments of the stall benchmark. The event-loop delay histogram sees every stall of
 * this process's loop (the gateway's: search, schema checks, the code-mode bridge and the HTTP
 * server share it). The /healthz poller sees what a client sees: it runs in a worker thread, with
 * its own event loop, so it keeps its requests in flight and its clock running while the
 * gateway's loop is blocked, and its latencies include the whole block.
 */
import { monitorEventLoopDelay, type IntervalHistogram } from "node:perf_hooks";
import { Worker } from "node:worker_threads";
import { distribution, round } from "../harness/stats.js";

export interface WindowFigures {
  wallMs: number;
  /** Event-loop delay (ms) over the window: the longest stall and the 99th percentile. */
  loopMaxMs: number;
  loopP99Ms: number;
  /** GET /healthz over loopback from the poller thread (ms): worst and p99, and how many answered. */
  healthzMaxMs: number;
  healthzP99Ms: number;
  healthzN: number;
  /**
   * Polls that failed (reset, refused, non-200). After a long block the gateway's keep-alive
   * timer fires late and drops the socket a poll is waiting on, so a stall can fail requests.
   */
  healthzErrors: number;
}

/**
 * The poller's code, run with `eval: true` so that the same source serves the compiled bench and
 * vitest (which runs the TypeScript and has no .js file beside it to point a Worker at). One
 * request at a time, then `intervalMs` of rest: a client that never stops asking.
 */
const POLLER_SOURCE = `
const http = require("node:http");
const { parentPort, workerData } = require("node:worker_threads");
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
let url = workerData.url;
let samples = [];
let errors = 0;
let polling = false;
let inFlight = null;
function once() {
  return new Promise((resolve) => {
    const started = performance.now();
    const req = http.get(url, { agent, timeout: 600000 }, (res) => {
      res.resume();
      res.on("end", () => {
        if (res.statusCode === 200) samples.push(performance.now() - started); else errors += 1;
        resolve();
      });
    });
    req.on("error", () => { errors += 1; resolve(); });
  });
}
async function loop() {
  let first = true;
  while (polling) {
    inFlight = once();
    await inFlight;
    inFlight = null;
    if (first) parentPort.postMessage({ type: "polling" });
    first = false;
    await new Promise((r) => setTimeout(r, workerData.intervalMs));
  }
}
parentPort.on("message", async (msg) => {
  if (msg.type === "start") {
    url = msg.url ?? url; samples = []; errors = 0; polling = true; loop();
  } else if (msg.type === "stop") {
    polling = false;
    if (inFlight) await inFlight;
    parentPort.postMessage({ type: "stopped", samples, errors });
  } else if (msg.type === "close") {
    polling = false; agent.destroy(); parentPort.close();
  }
});
`;

interface PollerReply {
  samples: number[];
  errors: number;
}

export class Probes {
  private readonly histogram: IntervalHistogram = monitorEventLoopDelay({ resolution: 1 });
  private readonly poller: Worker;

  constructor(healthzUrl: string, intervalMs = 5) {
    this.poller = new Worker(POLLER_SOURCE, { eval: true, workerData: { url: healthzUrl, intervalMs } });
    this.histogram.enable();
  }

  /**
   * Runs `body` inside one measuring window and returns the figures with body's own result.
   * `healthzUrl` points the poller at another gateway for this window (the MCP flood row).
   */
  async measure<T>(body: () => Promise<T>, healthzUrl?: string): Promise<{ figures: WindowFigures; value: T }> {
    // The poller must be answering (the worker booted, its socket open) before the body can block the loop.
    const polling = this.next("polling");
    this.poller.postMessage({ type: "start", ...(healthzUrl ? { url: healthzUrl } : {}) });
    await polling;
    this.histogram.reset();
    // reset() forgets the time of the last sample, and the delay is measured between samples:
    // a block that starts before the histogram's timer has fired once after reset is not seen.
    await new Promise((resolve) => setTimeout(resolve, 5));
    const started = performance.now();
    const value = await body();
    const wallMs = performance.now() - started;
    // The histogram samples from a libuv timer: a block that ended just now is recorded only when
    // that timer fires in the next timers phase, which setImmediate would run before.
    await new Promise((resolve) => setTimeout(resolve, 10));
    const loopMaxMs = this.histogram.max / 1e6;
    const loopP99Ms = this.histogram.percentile(99) / 1e6;
    const reply = await this.stopPoller();
    const healthz = distribution(reply.samples);
    return {
      value,
      figures: {
        wallMs: round(wallMs, 1),
        loopMaxMs: round(loopMaxMs, 2),
        loopP99Ms: round(loopP99Ms, 2),
        healthzMaxMs: round(reply.samples.length ? healthz.max : Number.NaN, 2),
        healthzP99Ms: round(reply.samples.length ? healthz.p99 : Number.NaN, 2),
        healthzN: reply.samples.length,
        healthzErrors: reply.errors,
      },
    };
  }

  private async stopPoller(): Promise<PollerReply> {
    const stopped = this.next("stopped");
    this.poller.postMessage({ type: "stop" });
    return (await stopped) as PollerReply;
  }

  /** The poller's next message of this type (it sends "polling" once per window, then "stopped"). */
  private next(type: "polling" | "stopped"): Promise<Partial<PollerReply>> {
    return new Promise((resolve, reject) => {
      const onMessage = (message: { type: string } & Partial<PollerReply>): void => {
        if (message.type !== type) return;
        this.poller.off("message", onMessage);
        this.poller.off("error", reject);
        resolve(message);
      };
      this.poller.on("message", onMessage);
      this.poller.once("error", reject);
    });
  }

  async close(): Promise<void> {
    this.histogram.disable();
    this.poller.postMessage({ type: "close" });
    await this.poller.terminate();
  }
}
