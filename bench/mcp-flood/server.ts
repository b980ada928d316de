/**
 * The flooding MCP server of the mcp-flood bench, a child over stdio built with the SDK:
 *
 *   node dist/bench/mcp-flood/server.js TOOLS EVERY_MS DURATION_MS
 *
 * Offers TOOLS tools; from its first tools/list on, for DURATION_MS, it changes one tool's
 * description and sends `notifications/tools/list_changed` every EVERY_MS. It writes
 * `lists=N` to stderr after each tools/list it answers (the source keeps the stderr tail).
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema, type Tool } from "@modelcontextprotocol/sdk/types.js";

const [tools = 10_000, everyMs = 50, durationMs = 20_000] = process.argv.slice(2).map(Number);

const topics = ["invoice", "customer", "ticket", "repository", "calendar", "payment", "shipment", "report", "sensor", "document"];
const verbs = ["create", "update", "delete", "list", "search", "export", "archive", "approve"];

function tool(i: number, revision: number): Tool {
  const topic = topics[i % topics.length]!;
  const verb = verbs[Math.floor(i / topics.length) % verbs.length]!;
  return {
    name: `${verb}_${topic}_${i}`,
    description: `${verb[0]!.toUpperCase()}${verb.slice(1)} a ${topic} record in workspace ${i % 97} (revision ${revision}). Returns the ${topic} as JSON.`,
    inputSchema: {
      type: "object",
      properties: {
        id: { type: "string", description: `The ${topic} id` },
        workspace: { type: "string" },
        limit: { type: "integer", minimum: 1, maximum: 100 },
      },
      required: ["id"],
    },
  };
}

const list: Tool[] = Array.from({ length: tools }, (_, i) => tool(i, 0));
let lists = 0;
let flooding: NodeJS.Timeout | undefined;

const server = new Server({ name: "flood", version: "1.0.0" }, { capabilities: { tools: { listChanged: true } } });
server.setRequestHandler(ListToolsRequestSchema, () => {
  lists += 1;
  process.stderr.write(`lists=${lists}\n`);
  if (lists === 1) startFlood();
  return { tools: list };
});
server.setRequestHandler(CallToolRequestSchema, (request) => ({ content: [{ type: "text", text: `ran ${request.params.name}` }] }));

function startFlood(): void {
  let revision = 0;
  const started = Date.now();
  flooding = setInterval(() => {
    if (Date.now() - started > durationMs) {
      clearInterval(flooding);
      return;
    }
    revision += 1;
    const i = revision % list.length;
    list[i] = tool(i, revision);
    void server.sendToolListChanged().catch(() => {});
  }, everyMs);
}

await server.connect(new StdioServerTransport());
process.stdin.on("end", () => {
  clearInterval(flooding);
  process.exit(0);
});
