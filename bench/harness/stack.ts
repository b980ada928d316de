/**
 * The honest measuring rig for anything the model sees: the real gateway (in-process, over
 * loopback HTTP) in front of the scripted OpenAI-compatible provider, exactly as `npm start`
 * runs them (src/demo/demo.ts). Request bytes are what the provider received, so discovery
 * round trips, the growing conversation and the openai client's own serialisation all count.
 * Measures the gateway in process before the scripted provider on purpose: imports src/config/, src/gateway/, src/mock-provider/ directly.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import type { CatalogSource, ToolSearchMode, PoolOptions, RunTelemetry } from "../../src/index.js";
import { resolveServerConfig } from "../../src/config/server-config.js";
import { startGateway, type Gateway } from "../../src/gateway/gateway-server.js";
import { startMockProvider, type MockProvider, type RecordedRequest } from "../../src/mock-provider/mock-provider.js";

export interface TurnOutcome {
  /** The mode the run used (code falls back to tools when the sandbox cannot start). */
  mode: ToolSearchMode;
  status: number;
  ok: boolean;
  /** The last tool the turn called, and whether that call succeeded. */
  finalTool?: string;
  roundTrips: number;
  telemetry?: RunTelemetry;
  error?: string;
  ms: number;
}

export interface MeasuredTurn extends TurnOutcome {
  /** Bodies the provider received during this turn, in order (sequential use only). */
  requests: RecordedRequest[];
}

export interface ScriptedStack {
  readonly gateway: Gateway;
  readonly provider: MockProvider;
  /** One agent turn through POST /v1/runs. */
  turn(input: string, mode: ToolSearchMode, sessionId: string): Promise<TurnOutcome>;
  /** One turn with the provider requests it caused; only valid while no other turn runs. */
  measuredTurn(input: string, mode: ToolSearchMode, sessionId: string): Promise<MeasuredTurn>;
  /**
   * Milliseconds the provider took for each request since the last reset, measured by a
   * pass-through proxy between the gateway and the provider (request start to response end):
   * the scripted model's share of a turn, which the gateway's own share is told apart from.
   */
  providerTimes(): number[];
  resetProviderTimes(): void;
  /** Drops the provider's recorded bodies (they hold whole requests: megabytes each in direct mode). */
  clearRecorded(): Promise<void>;
  close(): Promise<void>;
}

export interface StackOptions {
  sources: CatalogSource[];
  /** The gateway's configured mode; each turn overrides it. Default "code" (`true`), which also warms the sandbox pool. */
  toolSearch?: boolean | { mode: ToolSearchMode };
  pool?: PoolOptions;
  /** Provider round trips per turn before it is cut (default 8). */
  maxTurns?: number;
}

const BENCH_RECORDED_BYTES = 256 * 1024 * 1024;

export async function startScriptedStack(options: StackOptions): Promise<ScriptedStack> {
  const workDir = mkdtempSync(path.join(tmpdir(), "toolsearch-bench-"));
  // Whole direct-mode turns over 10,000 tools pass 16 MiB (the default bound); callers clear the record often.
  const provider = await startMockProvider({ maxRecordedBytes: BENCH_RECORDED_BYTES });
  const timer = await startTimingProxy(provider.port);
  let gateway: Gateway;
  try {
    const config = resolveServerConfig(
      {
        tools: { toolSearch: options.toolSearch ?? true },
        provider: { baseURL: timer.url, timeoutMs: 120_000 },
        gateway: { port: 0, maxTurns: options.maxTurns ?? 8 },
      },
      workDir,
      {},
    );
    gateway = await startGateway(config, { sources: options.sources, ...(options.pool ? { pool: options.pool } : {}) });
  } catch (error) {
    await timer.close();
    await provider.close();
    rmSync(workDir, { recursive: true, force: true });
    throw error;
  }

  async function turn(input: string, mode: ToolSearchMode, sessionId: string): Promise<TurnOutcome> {
    const started = performance.now();
    const response = await fetch(`${gateway.url}/v1/runs`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ sessionId, input, mode }),
    });
    const body = (await response.json()) as {
      mode?: ToolSearchMode;
      status?: string;
      roundTrips?: number;
      telemetry?: RunTelemetry;
      error?: { code?: string; message?: string };
    };
    const ms = performance.now() - started;
    const final = body.telemetry?.calls.at(-1);
    const ok = response.ok && body.status === "answered" && final?.ok === true;
    return {
      mode: body.mode ?? mode,
      status: response.status,
      ok,
      ...(final ? { finalTool: final.id } : {}),
      roundTrips: body.roundTrips ?? 0,
      ...(body.telemetry ? { telemetry: body.telemetry } : {}),
      ...(ok
        ? {}
        : {
            error:
              body.error?.message ??
              `status ${response.status}, turn ${body.status ?? "?"}, last call ${final ? `${final.id} ${final.ok ? "ok" : final.code}` : "none"}`,
          }),
      ms,
    };
  }

  return {
    gateway,
    provider,
    turn,
    async measuredTurn(input, mode, sessionId) {
      const mark = provider.received();
      const outcome = await turn(input, mode, sessionId);
      return { ...outcome, requests: provider.requestsSince(mark) };
    },
    providerTimes: () => [...timer.times],
    resetProviderTimes: () => {
      timer.times.length = 0;
    },
    async clearRecorded() {
      await fetch(`${provider.url.replace(/\/v1$/, "")}/debug/requests`, { method: "DELETE" }).then((r) => r.arrayBuffer());
    },
    async close() {
      await gateway.close();
      await timer.close();
      await provider.close();
      rmSync(workDir, { recursive: true, force: true });
    },
  };
}

/** A streaming pass-through proxy to the provider that times each exchange. */
async function startTimingProxy(port: number): Promise<{ url: string; times: number[]; close(): Promise<void> }> {
  const times: number[] = [];
  const server: Server = createServer((req, res) => {
    const started = performance.now();
    const upstream = httpRequest({ host: "127.0.0.1", port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
      answer.on("end", () => times.push(performance.now() - started));
    });
    upstream.on("error", (error) => {
      if (!res.headersSent) res.writeHead(502, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: `timing proxy: ${error.message}` } }));
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  const address = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${address.port}/v1`,
    times,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
