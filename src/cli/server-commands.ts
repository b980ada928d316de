/** `toolsearch serve` and `toolsearch mock-provider`: long-running servers that stop cleanly on SIGINT/SIGTERM. */
import path from "node:path";
import { configPath, readConfigFile } from "../config/config-file.js";
import { ToolSearchError } from "../errors.js";
import { isLoopbackHost } from "../gateway/gateway-auth.js";
import { resolveGatewayConfig, type GatewayConfig } from "../gateway/gateway-config.js";
import { startGateway } from "../gateway/gateway-server.js";
import { startMockProvider } from "../provider/mock-provider.js";
import { startOtlpExport, type OtlpExport } from "../telemetry/otlp-export.js";
import { UsageError, type CommandIo } from "./usage.js";

export const SERVE_USAGE = `Usage: toolsearch serve [--config FILE] [--port N] [--host HOST]

  Starts the HTTP gateway: POST /v1/runs runs one agent turn, GET /healthz reports status.
  Provider, catalog (plugins, mcpServers), policy and tools.toolSearch come from the JSON5
  config (default ./toolsearch.config.json5); provider.api picks the API ("chat", "responses",
  "anthropic"); OPENAI_BASE_URL, OPENAI_API_KEY (ANTHROPIC_BASE_URL, ANTHROPIC_API_KEY for
  "anthropic") and TOOLSEARCH_MODEL fill in a missing provider. Loopback (127.0.0.1:8788) by default; a
  non-loopback --host needs gateway.auth.tokens (bearer tokens, each with its identity).
  With OTEL_EXPORTER_OTLP_ENDPOINT set, spans are exported over OTLP/HTTP (the OpenTelemetry
  SDK packages are then loaded; they are optional peer dependencies).
  Prints "listening <url>" on stdout once ready; a bad config exits 2.`;

export const MOCK_PROVIDER_USAGE = `Usage: toolsearch mock-provider [--port N] [--host HOST]

  Starts the scripted provider: POST /v1/chat/completions (OpenAI Chat Completions),
  /v1/responses (OpenAI Responses) and /v1/messages (Anthropic Messages), planned the same way.
  It keeps the last 200 request bodies (16 MiB at most, oldest dropped first):
  GET /debug/requests.
  Prints "listening <url>" on stdout once ready.`;

export function parsePort(value: string | undefined, usage: string): number | undefined {
  if (value === undefined) return undefined;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new UsageError(`--port must be an integer from 0 to 65535; got "${value}"`, usage);
  return port;
}

export async function serveCommand(options: { config?: string; port?: string; host?: string }, io: CommandIo): Promise<number> {
  const file = configPath(options.config);
  const port = parsePort(options.port, SERVE_USAGE);
  let gateway;
  let otlp: OtlpExport | undefined;
  try {
    otlp = await startOtlpExport(process.env);
    if (otlp) io.err(`toolsearch serve: exporting OpenTelemetry spans over OTLP to ${originOf(otlp.endpoint)}`);
    const config = resolveGatewayConfig(readConfigFile(file), path.dirname(file), process.env, {
      ...(port !== undefined ? { port } : {}),
      ...(options.host ? { host: options.host } : {}),
    });
    warnIfExposed(config, io);
    gateway = await startGateway(config);
  } catch (error) {
    await otlp?.shutdown();
    // A config the gateway refuses is the operator's to fix, like a bad argument: one line, exit 2.
    if (!(error instanceof ToolSearchError && error.code === "CONFIG_INVALID")) throw error;
    io.err(`toolsearch serve: ${error.message}`);
    return 2;
  }
  io.out(`listening ${gateway.url}`);
  await untilSignal();
  await gateway.close();
  await otlp?.shutdown();
  return 0;
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
function warnIfExposed(config: GatewayConfig, io: CommandIo): void {
  if (config.gateway.auth && !isLoopbackHost(config.gateway.host)) {
    io.err(`toolsearch serve: bearer tokens travel in clear text over HTTP; put TLS (a reverse proxy) in front of ${config.gateway.host}`);
  }
}

export async function mockProviderCommand(options: { port?: string; host?: string }, io: CommandIo): Promise<number> {
  const port = parsePort(options.port, MOCK_PROVIDER_USAGE);
  const provider = await startMockProvider({ ...(port !== undefined ? { port } : {}), ...(options.host ? { host: options.host } : {}) });
  io.out(`listening ${provider.url}`);
  await untilSignal();
  await provider.close();
  return 0;
}

function untilSignal(): Promise<void> {
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
