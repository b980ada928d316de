/**
 * A Responses or Messages request read as the Chat Completions conversation it holds: the
 * scripted provider plans over it whatever the API, and the gateway's compatible routes run it
 * as the turn's messages (after checking the body against its schema). A list that is not a list
 * is refused with PROVIDER_FAILED, which the scripted provider answers 400 (a provider that
 * cannot read a request).
 */
import type { ChatMessage, ChatRequest, ChatToolCall } from "./chat-types.js";
import type { AnthropicContentBlock, AnthropicRequest, ResponsesRequest } from "./wire-types.js";
import type { ProviderTool } from "../surfaces/provider-tool.js";
import { ProviderFailedError } from "../errors.js";

export function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((part) => (typeof part === "object" && part !== null && typeof (part as { text?: unknown }).text === "string" ? (part as { text: string }).text : ""))
    .join("");
}

function list(value: unknown, what: string): unknown[] {
  if (value === undefined) return [];
  // The provider cannot read the request: it answers 400 with this (mock-provider.ts), which the caller hears as PROVIDER_FAILED.
  if (!Array.isArray(value)) throw new ProviderFailedError(`${what} must be a list`);
  return value;
}

function tool(name: unknown, description: unknown, parameters: unknown): ProviderTool {
  if (typeof name !== "string") throw new ProviderFailedError("a tool needs a name");
  return {
    type: "function",
    function: {
      name,
      description: typeof description === "string" ? description : "",
      parameters: (parameters ?? {}) as ProviderTool["function"]["parameters"],
    },
  };
}

/** Consecutive calls become one assistant message, as Chat Completions has them. */
function pushCall(messages: ChatMessage[], call: ChatToolCall, text: string | null = null): void {
  const last = messages.at(-1);
  if (last?.role === "assistant" && last.tool_calls && text === null) last.tool_calls.push(call);
  else messages.push({ role: "assistant", content: text, tool_calls: [call] });
}

export function responsesToChat(body: ResponsesRequest): ChatRequest {
  const messages: ChatMessage[] = [];
  if (typeof body.instructions === "string" && body.instructions) messages.push({ role: "system", content: body.instructions });
  const input = typeof body.input === "string" ? [{ role: "user" as const, content: body.input }] : list(body.input, "input");
  for (const raw of input) {
    const item = raw as Record<string, unknown>;
    if (item.type === "function_call") {
      pushCall(messages, { id: String(item.call_id), type: "function", function: { name: String(item.name), arguments: String(item.arguments ?? "") } });
    } else if (item.type === "function_call_output") {
      messages.push({ role: "tool", tool_call_id: String(item.call_id), content: textOf(item.output) });
    } else if (item.role === "user" || item.role === "assistant" || item.role === "system" || item.role === "developer") {
      const content = textOf(item.content);
      if (item.role === "assistant") messages.push({ role: "assistant", content });
      else messages.push({ role: item.role === "user" ? "user" : "system", content });
    }
  }
  const tools = list(body.tools, "tools").map((t) => {
    const { name, description, parameters } = t as Record<string, unknown>;
    return tool(name, description, parameters);
  });
  return { model: body.model, messages, tools };
}

export function anthropicToChat(body: AnthropicRequest): ChatRequest {
  const messages: ChatMessage[] = [];
  const system = textOf(body.system);
  if (system) messages.push({ role: "system", content: system });
  for (const raw of list(body.messages, "messages")) {
    const message = raw as { role?: unknown; content?: unknown };
    const blocks: AnthropicContentBlock[] =
      typeof message.content === "string" ? [{ type: "text", text: message.content }] : (list(message.content, "content") as AnthropicContentBlock[]);
    if (message.role === "assistant") {
      const text = blocks.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("") || null;
      const calls = blocks.flatMap((b) =>
        b.type === "tool_use" ? [{ id: b.id, type: "function" as const, function: { name: b.name, arguments: JSON.stringify(b.input ?? {}) } }] : [],
      );
      messages.push(calls.length > 0 ? { role: "assistant", content: text, tool_calls: calls } : { role: "assistant", content: text });
    } else if (message.role === "user") {
      for (const b of blocks) if (b.type === "tool_result") messages.push({ role: "tool", tool_call_id: b.tool_use_id, content: textOf(b.content) });
      const text = blocks.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("");
      if (text) messages.push({ role: "user", content: text });
    }
  }
  const tools = list(body.tools, "tools").map((t) => {
    const { name, description, input_schema } = t as Record<string, unknown>;
    return tool(name, description, input_schema);
  });
  return { model: body.model, messages, tools };
}
