import { createToolSearch, coreTools, pluginTools, mcpServer, jsonlSessionLog } from "toolsearch";

const engine = await createToolSearch({
  toolSearch: { mode: "code" }, // true = code mode, false = direct
  sources: [
    coreTools([
      {
        name: "get_weather",
        description: "Weather forecast for a city.",
        inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
        execute: async ({ city }) => ({ city, sky: "clear" }),
      },
    ]),
    pluginTools("github", [
      {
        name: "delete_repo",
        description: "Delete a GitHub repository.",
        inputSchema: { type: "object", properties: { repo: { type: "string" } }, required: ["repo"] },
        execute: async () => "deleted",
      },
    ]),
    // A real MCP server over stdio (npm install @modelcontextprotocol/server-memory beside the app).
    mcpServer({ name: "memory", command: "npx", args: ["-y", "@modelcontextprotocol/server-memory"] }),
  ],
  policy: { deny: ["plugin:github:delete_*"], ownerOnly: ["mcp:memory:delete_*"] },
  hooks: { beforeToolCall: (call) => (call.args.dryRun ? { block: true, reason: "dry run" } : undefined) },
  sessionLog: jsonlSessionLog("logs/session.jsonl"),
  onSourceDown: (status) => console.error(`${status.source}:${status.toolset} is down: ${status.error}`),
});

const run = await engine.prepareRun({ sessionId: "s1", agentId: "main", owner: false, prompt: "What's the weather in Oslo?" });
// Send run.tools (OpenAI Chat Completions `tools`; run.toolsFor("anthropic") for Messages) and
// run.instructions to the provider; answer each tool call the model makes with this (it never throws):
const code = 'const [hit] = await openclaw.tools.search("weather forecast"); return openclaw.tools.call(hit.id, { city: "Oslo" });';
console.log(await run.handleToolCall({ name: "tool_search_code", arguments: JSON.stringify({ code }) }));
// ...or use the engine directly, on any surface:
const [hit] = await run.search("read the whole knowledge graph"); // { id, name, source, toolset, summary, score, signature }
const tool = await run.describe(hit.id); // the full description and the exact inputSchema
console.log(tool.id, JSON.stringify(await run.call(hit.id, {}))); // { ok: true, result } | { ok: false, error: { code, message } }
console.log(JSON.stringify(await run.call("plugin:github:delete_repo", { repo: "x" }))); // denied: TOOL_NOT_FOUND, as if it never existed
console.log(JSON.stringify(run.telemetry().counts)); // searches, describes, calls, code runs
await run.end();
await engine.close();
