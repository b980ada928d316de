import type { ToolSource } from "./types.js";

/** `core:<name>`, `plugin:<pluginId>:<name>`, `mcp:<server>:<tool>`, `client:<name>`. */
export function toolId(source: ToolSource, toolset: string, name: string): string {
  return source === "core" || source === "client" ? `${source}:${name}` : `${source}:${toolset}:${name}`;
}
