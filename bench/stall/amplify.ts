/**
 * The amplifying-provider row (multi-tenant issue, row 8): a gateway in this process, direct
 * mode, whose catalog has a tool returning ~1 MiB, pointed at a provider that answers every trip
 * with 32 calls of it (hostile-provider.ts) and never with an answer. Turns run one after the
 * other through POST /v1/runs, at the gateway's default budgets, while the probes watch: the
 * event-loop histogram and the /healthz poller are what every other session of the process (a
 * bystander) sees. RSS is sampled through each turn; a turn's growth is its peak over the RSS
 * just before it. Without turn budgets one such turn sent a 224 MiB request and took 2.5 GB.
 * Measures the gateway in process on purpose: imports src/config/, src/gateway/ directly.
 */
import { request } from "node:http";
import { pluginTools } from "../../src/index.js";
import { resolveServerConfig } from "../../src/config/server-config.js";
import { startGateway, type Gateway } from "../../src/gateway/gateway-server.js";
import type { Progress } from "../harness/progress.js";
import { distribution, round, roundDistribution, type Distribution } from "../harness/stats.js";
import { memory } from "../lib/stats.js";
import { startHostileProvider } from "./hostile-provider.js";
import type { Probes, WindowFigures } from "./probes.js";

/** Megabytes as the target states them (10^6 bytes). */
const MB = 1e6;

export interface AmplifyOptions {
  /** Amplified turns, one after the other. */
  turns: number;
  /** Tool calls in each provider answer (the issue: 32). */
  calls: number;
  /** Bytes of the tool's result (the issue: 1 MiB). */
  resultBytes: number;
  /** gateway.maxTurnResultBytes for the row (default: the gateway's default). */
  maxTurnResultBytes?: number;
}

export interface AmplifyTurn {
  /** The turn's status ("max_turns"), or its error code. */
  outcome: string;
  ms: number;
  rssBeforeMB: number;
  rssPeakMB: number;
  /** Peak during the turn minus RSS just before it. */
  growthMB: number;
  /** Bytes of the gateway's HTTP answer (its toolCalls carry the results as kept). */
  answerBytes: number;
}

export interface AmplifyResult extends AmplifyOptions {
  /** The gateway's budgets the turns ran under. */
  budgets: { maxTurns: number; maxTurnResultBytes: number; maxRequestBytes: number; maxResultBytes: number };
  turnResults: AmplifyTurn[];
  /** The largest growth of one turn, MB. */
  maxGrowthMB: number;
  /** RSS after the last turn and a forced GC, minus RSS before the first (after a forced GC), MB. */
  retainedMB: number;
  /** Bytes of each provider request the stand-in received: the largest, and how many. */
  requestMaxBytes: number;
  requests: number;
  turnMs: Distribution;
  outcomes: Record<string, number>;
  /** The bystanders' view over all the turns. */
  window: WindowFigures;
}

export async function runAmplifyRow(probes: Probes, options: AmplifyOptions, log: Progress): Promise<AmplifyResult> {
  const provider = await startHostileProvider({ behaviour: "amplify", calls: options.calls, tool: "big_result" });
  let gateway: Gateway | undefined;
  try {
    const gatewaySection = { port: 0, ...(options.maxTurnResultBytes !== undefined ? { maxTurnResultBytes: options.maxTurnResultBytes } : {}) };
    const config = resolveServerConfig(
      { tools: { toolSearch: { mode: "direct" } }, provider: { baseURL: provider.url }, gateway: gatewaySection },
      process.cwd(),
      {},
    );
    const data = "x".repeat(Math.max(0, options.resultBytes - 16));
    const bigResult = {
      name: "big_result",
      description: "Returns a large blob of file data.",
      inputSchema: { type: "object", properties: {} },
      execute: () => ({ data }),
    };
    gateway = await startGateway(config, { sources: [pluginTools("files", [bigResult])], pool: { prefork: 0 } });
    const url = `${gateway.url}/v1/runs`;
    // One turn outside the window: the process's first provider request loads fetch's HTTP client
    // and compiles the code paths, a one-time cost that belongs to no turn.
    await measuredTurn(url, -1);
    const warmRequests = provider.requestBytes().length;
    const before = memory().rss;
    const { figures, value: turnResults } = await probes.measure(async () => {
      const turns: AmplifyTurn[] = [];
      for (let i = 0; i < options.turns; i += 1) {
        turns.push(await measuredTurn(url, i));
        log(
          `amplify turn ${i + 1}: ${turns.at(-1)!.outcome}, RSS +${turns.at(-1)!.growthMB} MB (peak ${turns.at(-1)!.rssPeakMB} MB), ${Math.round(turns.at(-1)!.ms)} ms`,
        );
      }
      return turns;
    }, `${gateway.url}/healthz`);
    const after = memory().rss;
    const sizes = provider.requestBytes().slice(warmRequests);
    const outcomes: Record<string, number> = {};
    for (const t of turnResults) outcomes[t.outcome] = (outcomes[t.outcome] ?? 0) + 1;
    return {
      ...options,
      budgets: {
        maxTurns: config.gateway.maxTurns,
        maxTurnResultBytes: config.gateway.maxTurnResultBytes,
        maxRequestBytes: config.provider.maxRequestBytes,
        maxResultBytes: gateway.engine.settings.maxResultBytes,
      },
      turnResults: turnResults.map((t) => ({ ...t, ms: round(t.ms, 1) })),
      maxGrowthMB: Math.max(0, ...turnResults.map((t) => t.growthMB)),
      retainedMB: round((after - before) / MB, 1),
      requestMaxBytes: Math.max(0, ...sizes),
      requests: sizes.length,
      turnMs: roundDistribution(distribution(turnResults.map((t) => t.ms)), 1),
      outcomes,
      window: figures,
    };
  } finally {
    await gateway?.close();
    await provider.close();
  }
}

/** One turn over HTTP with RSS sampled every 5 ms; the answer is counted, not parsed (that would be the bench's stall, not the gateway's). */
async function measuredTurn(url: string, i: number): Promise<AmplifyTurn> {
  const rssBefore = process.memoryUsage.rss();
  let peak = rssBefore;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 5);
  const started = performance.now();
  try {
    const { head, bytes } = await post(url, JSON.stringify({ sessionId: `stall-amplify-${i}`, input: "read the whole file" }));
    peak = Math.max(peak, process.memoryUsage.rss());
    return {
      outcome: outcomeOf(head),
      ms: performance.now() - started,
      rssBeforeMB: round(rssBefore / MB, 1),
      rssPeakMB: round(peak / MB, 1),
      growthMB: round((peak - rssBefore) / MB, 1),
      answerBytes: bytes,
    };
  } finally {
    clearInterval(sampler);
  }
}

/** The answer's status or error code, read from its first bytes (both come before toolCalls). */
function outcomeOf(head: string): string {
  return /"status":"([a-z_]+)"/.exec(head)?.[1] ?? /"code":"([A-Z_]+)"/.exec(head)?.[1] ?? "unparsed";
}

function post(url: string, body: string): Promise<{ head: string; bytes: number }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: "POST", headers: { "content-type": "application/json" } }, (res) => {
      let head = "";
      let bytes = 0;
      res.on("data", (chunk: Buffer) => {
        if (head.length < 4_096) head += chunk.subarray(0, 4_096).toString("utf8");
        bytes += chunk.length;
      });
      res.on("end", () => resolve({ head, bytes }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(body);
  });
}
