/**
 * LiveMCPBench's 527 real MCP tools (70 servers, their real input schemas) as catalog sources.
 * They are static data, not live servers, so each server becomes a tiny CatalogSource with
 * `source: "mcp"` (the interface in src/catalog/sources.ts): the engine then gives them the ids
 * a connected server would get, `mcp:<server>:<tool>`, and treats them as MCP tools everywhere.
 * Each tool goes through the MCP source's own mapping (src/mcp/map-tool.ts, default limits), so
 * what the model sees is what a live connection to the server would give it: descriptions
 * bounded, and a schema that is not valid JSON Schema for the catalog (read_pdf's draft-04
 * `exclusiveMinimum: true`) replaced the way the live source replaces it. Server names are made
 * valid `mcpServer` names ("Ant Design Components" → "Ant_Design_Components"), as a user
 * configuring that server would have to. Calling a tool returns a canned result, which is all
 * a payload measurement needs.
 * Maps static tools with the MCP source's own mapping on purpose: imports src/mcp/ directly.
 */
import { readFileSync } from "node:fs";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import path from "node:path";
import type { CatalogSource, JsonSchema, ToolDefinition } from "../../src/index.js";
import { mapTool } from "../../src/mcp/map-tool.js";
import { defaultMcpOptions } from "../../src/mcp/options.js";
import { mapToolNames, sanitizeToolName } from "../../src/mcp/tool-names.js";

interface LiveMcpEntry {
  name: string;
  tools?: Record<string, { server_name?: string; tools?: Array<{ name: string; description?: string | null; inputSchema?: JsonSchema }> }>;
}

export interface McpServerTools {
  server: string;
  tools: ToolDefinition[];
}

/** Every server of livemcpbench/tools.json with its tools, in file order. */
export function loadLiveMcpServers(dataDir: string): McpServerTools[] {
  const entries = JSON.parse(readFileSync(path.join(dataDir, "livemcpbench/tools.json"), "utf8")) as LiveMcpEntry[];
  const servers: McpServerTools[] = [];
  for (const entry of entries) {
    for (const [key, server] of Object.entries(entry.tools ?? {})) {
      const name = sanitizeToolName(key).slice(0, 64);
      const raw = server.tools ?? [];
      const names = mapToolNames(raw.map((t) => t.name));
      const { maxDescriptionChars, maxSchemaBytes } = defaultMcpOptions();
      const limits = { maxDescriptionChars, maxSchemaBytes };
      const tools = raw.map((tool) =>
        mapTool(
          {
            name: tool.name,
            ...(tool.description ? { description: tool.description } : {}),
            inputSchema: (tool.inputSchema ?? { type: "object" }) as Tool["inputSchema"],
          },
          names.get(tool.name)!,
          limits,
          async (original, args) => ({ content: [{ type: "text", text: `${name}/${original} ran with ${JSON.stringify(args)}` }] }),
        ),
      );
      servers.push({ server: name, tools });
    }
  }
  return servers;
}

class StaticMcpSource implements CatalogSource {
  readonly source = "mcp" as const;
  constructor(
    readonly toolset: string,
    private readonly definitions: readonly ToolDefinition[],
  ) {}
  tools(): readonly ToolDefinition[] {
    return this.definitions;
  }
}

/** One static `mcp` source per server. */
export function liveMcpSources(servers: readonly McpServerTools[]): CatalogSource[] {
  return servers.map((s) => new StaticMcpSource(s.server, s.tools));
}
