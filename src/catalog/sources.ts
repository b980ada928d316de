/**
 * Catalog sources: where tool definitions come from. Core and plugin sources are static
 * lists; the MCP source (src/mcp) is dynamic: it connects at start (in the background when that
 * is slow), may change its list, may go away and come back by itself. The catalog only talks to
 * this interface.
 */
import { ConfigInvalidError } from "../errors.js";
import type { ToolDefinition, ToolSource } from "./types.js";

export interface CatalogSource {
  readonly source: Exclude<ToolSource, "client">;
  /** "core", the plugin id, or the MCP server name; part of every tool id from this source. */
  readonly toolset: string;
  /**
   * Connects or loads; a source that fails here is reported and skipped, not fatal. A source
   * that keeps itself connected (an MCP server) may reject once it has waited long enough and go
   * on in the background: it then says so through `problem()` and notifies when its tools come.
   */
  start?(): Promise<void>;
  /** The tools the source offers now. */
  tools(): readonly ToolDefinition[];
  /** Registers a listener for list changes (MCP `tools/list_changed`). */
  onChange?(listener: () => void): void;
  /** Why the source is not serving right now, if it is not (model-facing: short, no secrets). */
  unavailableReason?(): string | undefined;
  /**
   * Why the source is not serving right now, for the operator (it may carry a server's stderr);
   * undefined while it serves. A source with it is trusted about its own state, whatever its
   * `start()` did; without it, a source whose `start()` failed stays down.
   */
  problem?(): string | undefined;
  close?(): Promise<void>;
}

class StaticSource implements CatalogSource {
  constructor(
    readonly source: "core" | "plugin",
    readonly toolset: string,
    private readonly definitions: readonly ToolDefinition[],
  ) {}
  tools(): readonly ToolDefinition[] {
    return this.definitions;
  }
}

/** The gateway's own tools: ids `core:<name>`. */
export function coreTools(definitions: readonly ToolDefinition[]): CatalogSource {
  return new StaticSource("core", "core", [...definitions]);
}

/** A plugin's tools: ids `plugin:<pluginId>:<name>`. */
export function pluginTools(pluginId: string, definitions: readonly ToolDefinition[]): CatalogSource {
  if (typeof pluginId !== "string" || !/^[A-Za-z0-9._-]{1,64}$/.test(pluginId)) {
    throw new ConfigInvalidError(`pluginTools: pluginId must be 1-64 characters of letters, digits, ".", "_" or "-"; got ${JSON.stringify(pluginId)}`);
  }
  return new StaticSource("plugin", pluginId, [...definitions]);
}
