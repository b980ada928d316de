/** The compact model-facing tools of the tool-search surfaces. */
import { controlTool, type ProviderTool } from "./provider-tool.js";

export const TOOL_SEARCH = "tool_search";
export const TOOL_DESCRIBE = "tool_describe";
export const TOOL_CALL = "tool_call";
export const TOOL_SEARCH_CODE = "tool_search_code";
export const CONTROL_NAMES: ReadonlySet<string> = new Set([TOOL_SEARCH, TOOL_DESCRIBE, TOOL_CALL, TOOL_SEARCH_CODE]);

export function toolsModeControlTools(maxLimit: number): ProviderTool[] {
  return [
    controlTool(TOOL_SEARCH, "Search the tool catalog by what a tool does. Returns compact hits: id, name, source, toolset, summary, signature.", {
      type: "object",
      properties: {
        query: { type: "string", description: "What the tool should do, in plain words." },
        queries: { type: "array", items: { type: "string" }, maxItems: 10, description: "Several searches at once." },
        limit: { type: "integer", minimum: 1, maximum: maxLimit, description: "Hits per query." },
      },
    }),
    controlTool(TOOL_DESCRIBE, "Get a tool's full description and exact input schema by id.", {
      type: "object",
      properties: { id: { type: "string", description: "A tool id from tool_search." } },
      required: ["id"],
    }),
    controlTool(TOOL_CALL, "Call a tool by id with arguments that match its input schema.", {
      type: "object",
      properties: {
        id: { type: "string", description: "A tool id from tool_search." },
        args: { type: "object", description: "Arguments matching the tool's input schema." },
      },
      required: ["id"],
    }),
  ];
}

export function codeControlTool(): ProviderTool {
  return controlTool(
    TOOL_SEARCH_CODE,
    "Run JavaScript that finds and calls tools. `code` is the body of an async function: use await openclaw.tools.search / describe / call, console.log for notes, and `return` the result.",
    {
      type: "object",
      properties: { code: { type: "string", description: "The body of an async JavaScript function." } },
      required: ["code"],
    },
  );
}

export const TOOLS_MODE_INSTRUCTIONS = [
  "Tools are not listed up front. To use one:",
  "1. tool_search {query} finds tools by what they do (ids look like core:x, plugin:p:x, mcp:server:x).",
  "2. tool_describe {id} gives its exact input schema.",
  "3. tool_call {id, args} calls it; errors come back as {code, message}.",
].join("\n");

export const CODE_INSTRUCTIONS = [
  "Tools are not listed up front. Use tool_search_code: its `code` is the body of an async JavaScript function that runs in a sandbox with only console.* and:",
  "  await openclaw.tools.search(query | queries[], { limit }) -> [{ id, name, source, toolset, summary, signature }]",
  "  await openclaw.tools.describe(id) -> { id, description, inputSchema }",
  "  await openclaw.tools.call(id, args) -> the tool's result; throws an Error with .code and .message on failure",
  "`return` the value you want back. Example:",
  '  const [hit] = await openclaw.tools.search("weather forecast"); const d = await openclaw.tools.describe(hit.id); return await openclaw.tools.call(hit.id, { city: "Paris" });',
].join("\n");
