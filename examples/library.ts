/**
 * The README's library example, as a file a test runs from the packed package in a fresh
 * project (ESM, TypeScript --strict). Needs: npm install <toolsearch tarball> @modelcontextprotocol/server-memory
 */
import { createToolSearch, coreTools, pluginTools, mcpServer, jsonlSessionLog, type ToolDefinition } from "toolsearch";

// A tool list declared on its own needs the ToolDefinition[] annotation: it types `execute`'s arguments.
const githubToolDefinitions: ToolDefinition[] = [
  {
    name: "create_issue",
    description: "Open an issue in a GitHub repository.",
    inputSchema: { type: "object", properties: { repo: { type: "string" }, title: { type: "string" } }, required: ["repo", "title"] },
    execute: async ({ repo, title }) => ({ repo, title, number: 42 }),
  },
  {
    name: "delete_repo",
    description: "Delete a GitHub repository.",
    inputSchema: { type: "object", properties: { repo: { type: "string" } }, required: ["repo"] },
    execute: async () => "deleted",
  },
];

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
    pluginTools("github", githubToolDefinitions),
    // npx finds the package installed beside the app (npm install @modelcontextprotocol/server-memory).
    mcpServer({ name: "memory", command: "npx", args: ["-y", "@modelcontextprotocol/server-memory"] }),
  ],
  policy: { deny: ["plugin:github:delete_*"], agents: { support: { allow: ["core:*"] } }, ownerOnly: ["mcp:*"] },
  hooks: { beforeToolCall: (call) => (call.args.dryRun ? { block: true, reason: "dry run" } : undefined), approve: (call) => call.source !== "mcp" },
  sessionLog: jsonlSessionLog("logs/session.jsonl"),
  // A source that cannot start is left out of the catalog; say so instead of losing its tools quietly.
  onSourceDown: (status) => console.error(`toolsearch: ${status.source} ${status.toolset} is down: ${status.error}`),
});

const prompt = "What's the weather in Oslo?";
const run = await engine.prepareRun({ sessionId: "s1", agentId: "main", owner: false, prompt });
// Send run.tools (OpenAI Chat Completions `tools`) and run.instructions to the provider; answer
// each tool call the model makes with the tool-message content this returns (it never throws).
// Here, a tool call as a model would send it in code mode:
const call = {
  function: {
    name: "tool_search_code",
    arguments: JSON.stringify({
      code: 'const [hit] = await openclaw.tools.search("weather forecast"); return await openclaw.tools.call(hit.id, { city: "Oslo" });',
    }),
  },
};
const content = await run.handleToolCall({ name: call.function.name, arguments: call.function.arguments });
console.log("model reads:", content);
// ...or use the engine directly, on any surface:
const hits = await run.search("weather forecast"); // [{ id, name, source, toolset, summary, score, signature }]
const tool = await run.describe(hits[0]!.id); // full description + the exact inputSchema
const outcome = await run.call(hits[0]!.id, { city: "Oslo" }); // { ok: true, result } | { ok: false, error: { code, message } }
console.log(tool.id, JSON.stringify(outcome));
console.log(
  "catalog:",
  engine
    .catalogStatus()
    .sources.map((s) => `${s.source}:${s.toolset} ${s.ok ? s.tools : "down"}`)
    .join(", "),
);
console.log(JSON.stringify(run.telemetry().counts)); // mode, fallback reason, catalog by source, upfront schemas and bytes, counts, every call
await run.end();
await engine.close();
