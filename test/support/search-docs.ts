import type { SearchDoc } from "../../src/search/types.js";

/** An MCP tool's search descriptor, as the catalog builds one: id `mcp:<toolset>:<name>`, parameters without descriptions. */
export function mcpDoc(toolset: string, name: string, description: string, params: readonly string[] = []): SearchDoc {
  return { id: `mcp:${toolset}:${name}`, name, source: "mcp", toolset, description, params: params.map((p) => ({ name: p, description: "" })) };
}
