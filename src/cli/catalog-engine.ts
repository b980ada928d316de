/**
 * The engine `toolsearch tools` and `toolsearch search` look through: the config's catalog,
 * policy and learning (as `serve` would load them), in tools mode so that no sandbox child is
 * started for a look at the catalog, with a progress line while MCP servers start.
 */
import path from "node:path";
import { loadConfig } from "../config/config-file.js";
import { engineFromConfig } from "../config/config-engine.js";
import { resolveServerConfig } from "../config/server-config.js";
import type { ToolSearchEngine } from "../engine/engine.js";
import type { McpServerSource } from "../mcp/index.js";
import type { PolicySubject } from "../policy/types.js";
import type { ToolSearchConfig } from "../settings/tool-search-config.js";
import { withProgress } from "./progress.js";
import type { CommandIo } from "./usage.js";
import { definedProps } from "../defined.js";

/** The identity options of `tools` and `search`: whose view of the catalog to show. */
export interface IdentityOptions {
  agent?: string;
  profile?: string;
  channel?: string;
  owner?: boolean;
}

export const IDENTITY_USAGE = `  --agent ID, --profile NAME, --channel NAME, --owner
                   Whose view: policy applied as for a run with this identity.`;

/** The policy subject the options name, or undefined when they name none (every tool, policy not applied). */
export function subjectOf(options: IdentityOptions): PolicySubject | undefined {
  const subject: PolicySubject = {
    ...definedProps({ agentId: options.agent, profile: options.profile, channel: options.channel }),
    ...(options.owner === true ? { owner: true } : {}),
  };
  return Object.keys(subject).length > 0 ? subject : undefined;
}

/** The config's tools.toolSearch with tools mode: its other settings (learning, limits, index cache) kept. */
function inToolsMode(toolSearch: ToolSearchConfig | undefined): ToolSearchConfig {
  if (toolSearch === false) return { mode: "tools", learning: false };
  if (toolSearch === undefined || toolSearch === true) return { mode: "tools" };
  return { ...toolSearch, mode: "tools" };
}

export async function openCatalogEngine(configFile: string | undefined, io: CommandIo, command: string): Promise<ToolSearchEngine> {
  const { file, config: raw } = loadConfig(configFile);
  const config = resolveServerConfig(raw, path.dirname(file));
  const starting = startingProgress(command, "building the search index");
  // A look at the catalog is no session: nothing goes to the session log.
  const { sessionLog: _log, ...unlogged } = config;
  const opened = engineFromConfig({ ...unlogged, toolSearch: inToolsMode(config.toolSearch) }, { onMcpSources: starting.onMcpSources });
  return (await withProgress(io, starting.describe, opened)).engine;
}

/**
 * What a command's progress line says while its engine starts: the MCP servers still
 * connecting, by name, else `otherwise` (the index, the sandbox). `onMcpSources` goes to
 * EngineExtras, which tells it the servers before they start.
 */
export function startingProgress(command: string, otherwise: string): { describe: () => string; onMcpSources: (sources: readonly McpServerSource[]) => void } {
  let servers: readonly McpServerSource[] = [];
  const pending = () => servers.filter((s) => s.status().state === "connecting" || s.status().state === "idle").map((s) => s.toolset);
  return {
    describe() {
      const waiting = pending();
      return `toolsearch ${command}: ${waiting.length > 0 ? `starting MCP server${waiting.length === 1 ? "" : "s"} ${waiting.join(", ")}` : otherwise}`;
    },
    onMcpSources: (sources) => {
      servers = sources;
    },
  };
}
