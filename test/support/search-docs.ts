import type { SearchDoc } from "../../src/search/types.js";

/** An MCP tool's search descriptor, as the catalog builds one: id `mcp:<owner>:<name>`, parameters without descriptions. */
export function mcpDoc(owner: string, name: string, description: string, params: readonly string[] = []): SearchDoc {
  return { id: `mcp:${owner}:${name}`, name, source: "mcp", owner, description, params: params.map((p) => ({ name: p, description: "" })) };
}
