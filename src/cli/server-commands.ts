/** `toolsearch serve` and `toolsearch mock-provider`: long-running servers that stop cleanly on SIGINT/SIGTERM. */
import path from "node:path";
import { loadConfig } from "../config/config-file.js";
import { isLoopbackHost } from "../auth/token-auth.js";
import { resolveServerConfig, type ServerConfig } from "../config/server-config.js";
import { startGateway } from "../gateway/gateway-server.js";
import { startMockProvider } from "../mock-provider/mock-provider.js";
import { startOtlpExport, type OtlpExport } from "../telemetry/otlp-export.js";
import {
  announceReady,
  clusterHealth,
  clusterPort,
  isClusterWorker,
  leaveCluster,
  leaveClusterAfterFailure,
  parseWorkers,
  poolSlotsPerWorker,
  runPrimary,
  workerStops,
  workerCount,
  workerIndex,
  workerPort,
} from "./cluster.js";
import { logSourceEvents } from "./source-log.js";
import { startingProgress } from "./catalog-engine.js";
import { withProgress } from "./progress.js";
import { configNotes, operatorLines, startupSummary } from "./startup-summary.js";
import { UsageError, type CommandIo } from "./usage.js";
import { definedProps } from "../defined.js";

export const SERVE_USAGE = `Usage: toolsearch serve [--config FILE] [--port N] [--host HOST] [--workers N|auto] [--verbose]

  Starts the HTTP gateway: POST /v1/runs runs one agent turn, GET /healthz reports status;
  POST /v1/chat/completions, /v1/responses and /v1/messages serve OpenAI's and Anthropic's
  clients (streaming included), GET /v1/models lists provider.models.
  Provider, catalog (plugins, mcpServers), policy and tools.toolSearch come from the JSON5
  config (default ./toolsearch.config.json5); provider.api picks the API ("chat", "responses",
  "anthropic"); OPENAI_BASE_URL, OPENAI_API_KEY (ANTHROPIC_BASE_URL, ANTHROPIC_API_KEY for
  "anthropic") and TOOLSEARCH_MODEL fill in a missing provider. Loopback (127.0.0.1:8788) by default; a
  non-loopback --host needs gateway.auth.tokens (bearer tokens, each with its identity).
  With OTEL_EXPORTER_OTLP_ENDPOINT set, spans are exported over OTLP/HTTP (the OpenTelemetry
  SDK packages are then loaded; they are optional peer dependencies).
  Prints the catalog by source, the sandbox layers and each MCP server that is down on stderr,
  then "listening <url>" on stdout once ready; a bad config exits 2. --verbose logs one line
  per request (method, path, status, ms, session) on stderr.
  SIGTERM/SIGINT stops taking requests (those that arrive are answered 503 CLOSING), gives
  the turns in flight gateway.drainMs (10 s) to finish, answers those still running 503
  CLOSING with their telemetry, then exits 0; a second signal ends the wait at once.
  --workers N|auto starts N worker processes (auto: one per core) that share the port, each
  with its own engine and a code pool of cores/N slots; SIGTERM/SIGINT drains and stops them
  all the same way. A worker that dies comes back (gateway.workers: restarts per slot, cool-down,
  heartbeats); with none left the primary exits 1. With tools.toolSearch.indexCacheDir set,
  only one of them builds the index.`;

export const MOCK_PROVIDER_USAGE = `Usage: toolsearch mock-provider [--port N] [--host HOST]

  Starts the scripted provider: POST /v1/chat/completions (OpenAI Chat Completions),
  /v1/responses (OpenAI Responses) and /v1/messages (Anthropic Messages), planned the same way;
  with "stream": true it answers with Server-Sent Events in that API's format.
  It keeps the last 200 request bodies (16 MiB at most, oldest dropped first):
  GET /debug/requests.
  Prints "listening <url>" on stdout once ready.`;

export function parsePort(value: string | undefined, usage: string, flag = "--port"): number | undefined {
  if (value === undefined) return undefined;
  const port = Number(value);
  if (value.trim() === "" || !Number.isInteger(port) || port < 0 || port > 65_535)
    throw new UsageError(`${flag} must be an integer from 0 to 65535; got "${value}"`, usage);
  return port;
}

type ServeOptions = { config?: string; port?: string; host?: string; verbose?: boolean; workers?: string };

export async function serveCommand(options: ServeOptions, io: CommandIo): Promise<number> {
  try {
    return await serve(options, io);
  } catch (error) {
    // A worker that cannot start (its config changed, its port is taken) must exit, so the primary restarts it.
    if (options.workers !== undefined && isClusterWorker()) leaveClusterAfterFailure();
    throw error;
  }
}

async function serve(options: ServeOptions, io: CommandIo): Promise<number> {
  const workers = parseWorkers(options.workers, SERVE_USAGE);
  const worker = workers !== undefined && isClusterWorker();
  const port = (worker ? workerPort() : undefined) ?? parsePort(options.port, SERVE_USAGE);
  // A config the gateway refuses (ConfigInvalidError) is answered by main: one line, exit 2.
  const { file, config: raw } = loadConfig(options.config);
  const config = resolveServerConfig(raw, path.dirname(file), process.env, {
    ...definedProps({ port }),
    ...(options.host ? { host: options.host } : {}),
  });
  // The primary checks the config (a bad one exits 2 before any fork) and runs no engine.
  if (workers !== undefined && !worker) {
    warnIfExposed(config, io);
    const listen = { port: await clusterPort(config.gateway.port, config.gateway.host) };
    return runPrimary(workers, "serve", io, config.gateway.workers, listen, config.gateway.drainMs);
  }
  if (!worker) warnIfExposed(config, io);
  const otlp = await startOtlp(io, "serve");
  const slots = worker ? poolSlotsPerWorker(workerCount()) : undefined;
  // Every worker has its own engine, so its own sources: each says what it sees of them.
  const err = worker ? (line: string) => io.err(`[worker ${workerIndex()} pid ${process.pid}] ${line}`) : io.err;
  let gateway;
  const starting = startingProgress("serve", "building the search index and starting the sandbox");
  try {
    const started = startGateway(config, {
      onSourceEvent: logSourceEvents("serve", err),
      ...(options.verbose ? { log: err } : {}),
      ...(slots !== undefined ? { pool: { prefork: Math.min(2, slots), maxConcurrent: slots }, health: async () => ({ cluster: await clusterHealth() }) } : {}),
      onMcpSources: starting.onMcpSources,
    });
    // Workers start together: only the first says what they wait for.
    gateway = !worker || workerIndex() === 0 ? await withProgress(io, starting.describe, started) : await started;
  } catch (error) {
    await otlp?.shutdown();
    throw error;
  }
  if (!worker || workerIndex() === 0)
    for (const line of await startupSummary(gateway.engine, "serve", [
      `provider ${config.provider.api} at ${config.provider.baseURL}, model ${config.provider.model}`,
      ...operatorLines(config, new URL(gateway.url).origin),
      ...configNotes(config),
    ]))
      io.err(line);
  // A worker counts its stops from here on, so that a second stop never arrives before it listens.
  const stops = worker ? workerStops() : undefined;
  if (stops) {
    announceReady(gateway.url);
    await stops.first;
  } else {
    io.out(`listening ${gateway.url}`);
    await untilSignal();
  }
  // The drain: a second signal (in a worker, a second stop from the primary) ends it at once.
  const insist = stops ?? nextSignal();
  // close() stops listening before it first waits, so the line below is true when it is read:
  // printed first, a connection made on reading it could still reach the listener's backlog.
  const closing = gateway.close({ drainMs: config.gateway.drainMs, signal: insist.signal });
  if (!worker) io.err(`toolsearch serve: stopping; requests in flight get up to ${config.gateway.drainMs} ms (gateway.drainMs); a second signal stops at once`);
  try {
    await closing;
  } finally {
    insist.release();
  }
  await otlp?.shutdown();
  if (worker) leaveCluster();
  return 0;
}

/** OTLP export when OTEL_EXPORTER_OTLP_ENDPOINT is set (the SDK is loaded only then), announced on stderr. */
export async function startOtlp(io: CommandIo, command: string): Promise<OtlpExport | undefined> {
  const otlp = await startOtlpExport(process.env);
  if (otlp) io.err(`toolsearch ${command}: exporting OpenTelemetry spans over OTLP to ${originOf(otlp.endpoint)}`);
  return otlp;
}

/** The endpoint's origin only: a path or query could carry a secret. */
function originOf(endpoint: string): string {
  try {
    return new URL(endpoint).origin;
  } catch {
    return "(an endpoint that is not a URL)";
  }
}

/** Tokens over plain HTTP beyond loopback can be read on the wire. */
function warnIfExposed(config: ServerConfig, io: CommandIo): void {
  if (config.gateway.auth && !isLoopbackHost(config.gateway.host)) {
    io.err(`toolsearch serve: bearer tokens travel in clear text over HTTP; put TLS (a reverse proxy) in front of ${config.gateway.host}`);
  }
}

export async function mockProviderCommand(options: { port?: string; host?: string }, io: CommandIo): Promise<number> {
  const port = parsePort(options.port, MOCK_PROVIDER_USAGE);
  const provider = await startMockProvider({ ...definedProps({ port }), ...(options.host ? { host: options.host } : {}) });
  io.out(`listening ${provider.url}`);
  await untilSignal();
  await provider.close();
  return 0;
}

/**
 * Aborted at the next SIGINT/SIGTERM: during a drain, the operator insisting. Its listeners
 * also keep the default action (exit at once, killing children unawaited) from applying.
 */
export function nextSignal(): { signal: AbortSignal; release(): void } {
  const insisted = new AbortController();
  const stop = (): void => insisted.abort();
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  return {
    signal: insisted.signal,
    release: () => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
    },
  };
}

export function untilSignal(): Promise<void> {
  return new Promise((resolve) => {
    const stop = () => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      resolve();
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });
}
