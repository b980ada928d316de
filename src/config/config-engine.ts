/**
 * The engine a config file describes — plugins, MCP servers, policy, tools.toolSearch and the
 * session log — built the same way for `serve` (the gateway) and `mcp` (the MCP server face).
 */
import type { CatalogSource } from "../catalog/sources.js";
import { createToolSearch, type ToolSearchEngine } from "../engine/engine.js";
import { mcpServer, type McpServerSource, type McpSourceEvent } from "../mcp/index.js";
import type { PoolOptions } from "../sandbox/types.js";
import { jsonlSessionLog, type JsonlSessionLog } from "../telemetry/jsonl-session-log.js";
import type { SessionLogSink } from "../telemetry/types.js";
import type { ServerConfig } from "./server-config.js";
import { loadPluginFolder } from "./plugin-loader.js";
import { withServerLearning } from "../settings/tool-search-config.js";
import { tenantOfToken } from "../auth/token-auth.js";

export interface EngineExtras {
  /** Extra catalog sources (tests, embedded defaults), before the config's own. */
  sources?: CatalogSource[];
  pool?: PoolOptions;
  /**
   * Hears each configured MCP server's tries, failures and breaker changes from before the
   * engine starts, so that a start-up log says each server's state as it happens.
   */
  onSourceEvent?: (source: McpServerSource, event: McpSourceEvent) => void;
  /** Also gets every session event the session log gets (the operator's live telemetry and metrics), config file or not. */
  events?: SessionLogSink;
  /** Told the config's MCP servers before they start (a command's progress line names those still starting). */
  onMcpSources?: (sources: readonly McpServerSource[]) => void;
}

export interface ConfiguredEngine {
  engine: ToolSearchEngine;
  /** The config's MCP servers, as the engine holds them (for status and reasons). */
  mcpSources: McpServerSource[];
  /** Open when the config names one; the caller closes it after the engine. */
  sessionLog?: JsonlSessionLog;
}

export async function engineFromConfig(config: ServerConfig, extras: EngineExtras = {}): Promise<ConfiguredEngine> {
  const plugins = (await Promise.all(config.plugins.map(loadPluginFolder))).flat();
  const mcp = config.mcpServers.map(({ options, ...server }) => mcpServer(server, options));
  const listen = extras.onSourceEvent;
  if (listen) for (const source of mcp) source.onEvent((event) => listen(source, event));
  extras.onMcpSources?.(mcp);
  const sessionLog = config.sessionLog ? jsonlSessionLog(config.sessionLog.file, { recordQueries: config.sessionLog.recordQueries }) : undefined;
  try {
    const engine = await createToolSearch({
      // A server's learning default (learning/options.ts SERVER_LEARNING_DEFAULT).
      toolSearch: withServerLearning(config.toolSearch),
      ...(config.policy ? { policy: config.policy } : {}),
      sources: [...(extras.sources ?? []), ...plugins, ...mcp],
      ...sinkOption([sessionLog, extras.events]),
      ...(extras.pool ? { pool: extras.pool } : {}),
      // The tenants that exist: what a revoked token's runs taught is dropped (without auth, no run has a tenant).
      tenants: (config.gateway.auth?.tokens ?? []).map(tenantOfToken),
    });
    return { engine, mcpSources: mcp, ...(sessionLog ? { sessionLog } : {}) };
  } catch (error) {
    await sessionLog?.close();
    throw error;
  }
}

/** The engine's one sink: the session log, the operator's, both (each write goes to both; neither may throw, SessionLogSink's rule), or none. */
function sinkOption(sinks: ReadonlyArray<SessionLogSink | undefined>): { sessionLog?: SessionLogSink } {
  const present = sinks.filter((sink): sink is SessionLogSink => sink !== undefined);
  if (present.length <= 1) return present[0] ? { sessionLog: present[0] } : {};
  return {
    sessionLog: {
      write(event) {
        for (const sink of present) sink.write(event);
      },
    },
  };
}
