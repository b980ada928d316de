/**
 * The scripted model: plans the next assistant message from what it is given, the way a model
 * would. With `tool_search_code` declared it sends a body that searches for the request,
 * describes the best hit and calls it; with `tool_search` declared it walks search → describe
 * → call over turns; with a matching tool declared directly it calls it; after the final tool
 * result it answers with that result.
 */
import { analyzeText } from "../search/analysis/analyze.js";
import type { ChatMessage, ChatRequest, ChatToolCall } from "../wire/chat-types.js";
import { sampleArgs } from "./sample-args.js";

export type Plan = { toolCall: { name: string; arguments: Record<string, unknown> } } | { answer: string };

const CONTROL = new Set(["tool_search", "tool_describe", "tool_call", "tool_search_code"]);

function codeBody(query: string): string {
  return [
    `const hits = await openclaw.tools.search(${JSON.stringify(query)}, { limit: 3 });`,
    "if (hits.length === 0) return { found: false };",
    "const tool = await openclaw.tools.describe(hits[0].id);",
    "const args = {};",
    "for (const field of tool.inputSchema.required ?? []) {",
    "  const type = tool.inputSchema.properties?.[field]?.type;",
    "  args[field] = type === 'integer' || type === 'number' ? 1 : type === 'boolean' ? true : 'sample-' + field;",
    "}",
    "console.log('calling', hits[0].id);",
    "return await openclaw.tools.call(hits[0].id, args);",
  ].join("\n");
}

export function plan(request: ChatRequest): Plan {
  const messages = request.messages ?? [];
  const lastUser = messages.findLastIndex((m) => m.role === "user");
  const userText = lastUser >= 0 ? String(messages[lastUser]!.content ?? "") : "";
  const turn = messages.slice(lastUser + 1);
  const lastCall = lastToolCall(turn);
  const lastResult = turn.filter((m): m is Extract<ChatMessage, { role: "tool" }> => m.role === "tool").at(-1)?.content;
  const declared = new Map((request.tools ?? []).map((t) => [t.function.name, t]));

  if (lastCall && lastResult !== undefined) return next(lastCall.function.name, lastResult);
  if (declared.has("tool_search_code")) return call("tool_search_code", { code: codeBody(userText) });
  const direct = bestDirectTool(
    userText,
    [...declared.values()].filter((t) => !CONTROL.has(t.function.name)),
  );
  if (direct && (direct.strong || !declared.has("tool_search"))) return call(direct.tool.function.name, sampleArgs(direct.tool.function.parameters));
  if (declared.has("tool_search")) return call("tool_search", { query: userText, limit: 5 });
  return { answer: "I have no tool for that." };
}

/** After a tool result: the next step of the search → describe → call walk, or the answer. */
function next(previous: string, result: string): Plan {
  const parsed = parseJson(result);
  if (previous === "tool_search") {
    const hits = (parsed as { hits?: Array<{ id: string }> } | undefined)?.hits ?? [];
    return hits[0] ? call("tool_describe", { id: hits[0].id }) : { answer: "No tool matches that request." };
  }
  if (previous === "tool_describe") {
    const tool = parsed as { id?: string; inputSchema?: unknown } | undefined;
    return tool?.id ? call("tool_call", { id: tool.id, args: sampleArgs(tool.inputSchema) }) : { answer: `The tool could not be described: ${result}` };
  }
  return { answer: `Result: ${result}` };
}

function call(name: string, args: Record<string, unknown>): Plan {
  return { toolCall: { name, arguments: args } };
}

function lastToolCall(turn: readonly ChatMessage[]): ChatToolCall | undefined {
  for (let i = turn.length - 1; i >= 0; i -= 1) {
    const message = turn[i]!;
    if (message.role === "assistant" && message.tool_calls?.length) return message.tool_calls.at(-1);
  }
  return undefined;
}

/** The declared tool whose name and description share the most words with the request. */
function bestDirectTool(
  text: string,
  tools: NonNullable<ChatRequest["tools"]>,
): { tool: NonNullable<ChatRequest["tools"]>[number]; strong: boolean } | undefined {
  const wanted = new Set(analyzeText(text));
  if (wanted.size === 0 || tools.length === 0) return undefined;
  let best: { tool: (typeof tools)[number]; score: number } | undefined;
  for (const tool of tools) {
    const nameWords = new Set(analyzeText(tool.function.name.replace(/_/g, " ")));
    const words = new Set([...nameWords, ...analyzeText(tool.function.description)]);
    let score = 0;
    for (const word of wanted) score += (nameWords.has(word) ? 2 : 0) + (words.has(word) ? 1 : 0);
    if (!best || score > best.score) best = { tool, score };
  }
  if (!best || best.score === 0) return undefined;
  // A tool counts as the obvious choice when most request words hit its name or description.
  return { tool: best.tool, strong: best.score >= wanted.size * 1.5 };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
