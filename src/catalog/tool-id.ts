import type { ToolSource } from "./types.js";

/** `core:<name>`, `plugin:<pluginId>:<name>`, `mcp:<server>:<tool>`, `client:<name>`. */
export function toolId(source: ToolSource, owner: string, name: string): string {
  return source === "core" || source === "client" ? `${source}:${name}` : `${source}:${owner}:${name}`;
}
