/** `toolsearch mcp`: the configured catalog as an MCP server, over stdio (default) or Streamable HTTP. */
import path from "node:path";
import { loadConfig } from "../config/config-file.js";
import { ClientNotReadingError } from "../errors.js";
import { resolveServerConfig } from "../config/server-config.js";
import { checkHttpExposure, checkTokenIdentities, createMcpFace } from "../mcpface/mcp-face.js";
import { resolveToolSearchConfig } from "../settings/tool-search-config.js";
import { parseWorkers } from "./cluster.js";
import { UsageError } from "./usage.js";
import { nextSignal, parsePort, startOtlp, untilSignal } from "./server-commands.js";
import { logSourceEvents } from "./source-log.js";
import { startingProgress } from "./catalog-engine.js";
import { withProgress } from "./progress.js";
import { configNotes, operatorLines, startupSummary } from "./startup-summary.js";
import type { CommandIo } from "./usage.js";
import { definedProps } from "../defined.js";

export const MCP_USAGE = `Usage: toolsearch mcp [--config FILE] [--http PORT] [--host HOST] [--workers 1] [--verbose]

  Serves the configured catalog (plugins, mcpServers, policy, tools.toolSearch) to an MCP
  client. stdio by default: an MCP client (Claude Desktop, Cursor, VS Code) starts this command
  and talks on stdin/stdout. --http PORT serves Streamable HTTP at http://HOST:PORT/mcp instead
  (127.0.0.1 by default; a non-loopback --host needs gateway.auth.tokens).
  Modes: tools and directory show tool_search, tool_describe, tool_call; code shows
  tool_search_code; direct shows every allowed tool. Policy identity comes from the config's
  mcp section { agentId, owner, channel }, never from the client.
  Messages go to stderr (with --http, "listening <url>" goes to stdout once ready);
  --verbose logs one line per request on stderr. With OTEL_EXPORTER_OTLP_ENDPOINT set, spans
  are exported over OTLP/HTTP (the OpenTelemetry SDK packages are then loaded).
  A stdio client that leaves more than mcp.maxUnreadBytes of answers unread is disconnected:
  the reason goes to stderr and the command exits 1. A stdio line over gateway.maxBodyBytes
  is answered BODY_TOO_LARGE and the next one is served.
  SIGTERM/SIGINT stops taking requests (they are answered CLOSING), gives the calls in flight
  gateway.drainMs (10 s) to finish, answers those still running CLOSING, then exits 0; a
  second signal ends the wait at once.`;

export interface McpCommandOptions {
  config?: string;
  http?: string;
  host?: string;
  verbose?: boolean;
  workers?: string;
}

export async function mcpCommand(options: McpCommandOptions, io: CommandIo): Promise<number> {
  const port = parsePort(options.http, MCP_USAGE, "--http");
  const workers = parseWorkers(options.workers, MCP_USAGE);
  // Streamable HTTP sessions live in the process that made them, and node:cluster hands out
  // connections, not sessions: a second worker would answer SESSION_NOT_FOUND. One process here;
  // scale out with replicas behind a balancer sticky on the mcp-session-id header.
  if (workers !== undefined && workers > 1) {
    throw new UsageError(
      port === undefined
        ? "--workers needs --http (stdio is one client)"
        : "--workers above 1 is refused: MCP sessions live in one process; run replicas behind a balancer sticky on the mcp-session-id header (docs/deployment.md)",
      MCP_USAGE,
    );
  }
  const { file, config: raw } = loadConfig(options.config);
  const config = resolveServerConfig(raw, path.dirname(file), process.env, {
    ...definedProps({ port }),
    ...(options.host ? { host: options.host } : {}),
  });
  // Before any MCP server is spawned: a refused --host costs nothing to start and stop.
  if (port !== undefined) {
    checkHttpExposure(config, config.gateway.host);
    checkTokenIdentities(config, resolveToolSearchConfig(config.toolSearch).mode);
  }
  const otlp = await startOtlp(io, "mcp");
  let face;
  try {
    const starting = startingProgress("mcp", "building the search index and starting the sandbox");
    face = await withProgress(
      io,
      starting.describe,
      createMcpFace(config, {
        onSourceEvent: logSourceEvents("mcp", io.err),
        ...(options.verbose ? { log: io.err } : {}),
        onMcpSources: starting.onMcpSources,
      }),
    );
  } catch (error) {
    await otlp?.shutdown();
    throw error;
  }
  let notReading: ClientNotReadingError | undefined;
  // A signal asks to stop: the calls in flight then get the drain (a client that went away gets none).
  let signalled = false;
  const stop = untilSignal().then(() => (signalled = true));
  try {
    // Over HTTP the console's and the metrics' addresses follow once the port is bound; stdio has only OTLP.
    const stdioLines = port === undefined ? operatorLines(config, undefined) : [];
    for (const line of await startupSummary(face.engine, "mcp", [...stdioLines, ...configNotes(config)])) io.err(line);
    if (port === undefined) {
      // stdout is the protocol: every message of ours goes to stderr.
      await Promise.race([face.serveStdio(), stop]);
      return 0;
    }
    const { url } = await face.listenHttp(config.gateway.host, config.gateway.port);
    for (const line of operatorLines(config, new URL(url).origin)) io.err(`toolsearch mcp: ${line}`);
    io.out(`listening ${url}`);
    await stop;
    return 0;
  } catch (error) {
    if (!(error instanceof ClientNotReadingError)) throw error;
    notReading = error;
    return 1;
  } finally {
    // The drain: a second signal ends it at once.
    const insist = signalled ? nextSignal() : undefined;
    // Said once close() has begun (it stops taking requests before it first waits), as serve does.
    const closing = face.close(insist ? { drainMs: config.gateway.drainMs, signal: insist.signal } : {});
    if (insist) io.err(`toolsearch mcp: stopping; calls in flight get up to ${config.gateway.drainMs} ms (gateway.drainMs); a second signal stops at once`);
    await closing;
    insist?.release();
    await otlp?.shutdown();
    if (notReading) exitLeavingStdout(io, notReading);
    // A client that keeps its end of stdin open must not keep this process alive.
    if (port === undefined) process.stdin.destroy();
  }
}

/**
 * The answers the client never read stay queued on stdout, and Node never closes fd 1, so the
 * pending write would keep this process alive as long as the client keeps the pipe open: say
 * why on stderr and exit now (everything else is closed already).
 */
function exitLeavingStdout(io: CommandIo, error: ClientNotReadingError): never {
  io.err(`toolsearch mcp: ${error.message}`);
  process.exit(1);
}
