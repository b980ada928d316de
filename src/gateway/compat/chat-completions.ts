/**
 * `POST /v1/chat/completions`, as OpenAI's Chat Completions API: `messages` (system, developer,
 * user, assistant with `tool_calls`, tool) are the turn, `tools` (function tools) its client
 * tools. Text content only; `n` above 1 and tool choices other than "auto" are refused. Other
 * sampling fields are accepted and left to the gateway's provider settings.
 */
import { randomUUID } from "node:crypto";
import type { ChatMessage } from "../../wire/chat-types.js";
import { ChatStreamWriter } from "../../wire/chat-stream.js";
import { chatCompletionOf } from "../../wire/reply.js";
import { textOf } from "../../wire/to-chat.js";
import type { TypeOf } from "../../validation/typed-schema.js";
import { bodyChecker, clientToolSpec, LIMITS, modelName, TOOL_CHOICE_WHY, type CompatApi, type CompatRequest } from "./compat-api.js";

// The APIs' objects are open (`as const`, not object()): fields the gateway does not read are accepted and left to the provider settings.
const text = { type: "string" } as const;
const content = {
  description: 'a string, or a list of { type: "text", text } parts (only text content is supported)',
  anyOf: [
    { type: "string" },
    { type: "null" },
    {
      type: "array",
      maxItems: LIMITS.parts,
      items: { type: "object", required: ["type", "text"], properties: { type: { const: "text" }, text } },
    },
  ],
} as const;
const toolCall = {
  type: "object",
  required: ["id", "function"],
  properties: {
    id: { type: "string", minLength: 1, maxLength: LIMITS.id },
    type: { const: "function" },
    function: {
      type: "object",
      required: ["name", "arguments"],
      properties: { name: { type: "string", minLength: 1, maxLength: LIMITS.id }, arguments: text },
    },
  },
} as const;

/** A Chat Completions request body, as far as the gateway reads it. */
const chatBodySchema = {
  type: "object",
  required: ["model", "messages"],
  properties: {
    model: modelName,
    messages: {
      type: "array",
      minItems: 1,
      maxItems: LIMITS.messages,
      items: {
        type: "object",
        required: ["role"],
        properties: {
          role: { enum: ["system", "developer", "user", "assistant", "tool"] },
          content,
          tool_calls: { type: "array", maxItems: LIMITS.calls, items: toolCall },
          tool_call_id: { type: "string", minLength: 1, maxLength: LIMITS.id },
        },
        allOf: [
          { if: { properties: { role: { const: "tool" } } }, then: { required: ["tool_call_id", "content"] } },
          { if: { properties: { role: { enum: ["system", "developer", "user"] } } }, then: { required: ["content"] } },
        ],
      },
    },
    tools: {
      anyOf: [
        { type: "null" },
        {
          type: "array",
          maxItems: LIMITS.tools,
          items: {
            type: "object",
            required: ["type", "function"],
            properties: {
              type: { const: "function", description: '"function" (the only tool type the gateway hands to the model)' },
              function: {
                type: "object",
                required: ["name"],
                properties: {
                  name: { type: "string", minLength: 1, maxLength: LIMITS.name },
                  description: { type: "string", maxLength: LIMITS.description },
                  parameters: { type: "object" },
                },
              },
            },
          },
        },
      ],
    },
    tool_choice: { description: `"auto" or absent: ${TOOL_CHOICE_WHY}`, anyOf: [{ type: "null" }, { const: "auto" }] },
    n: { description: "1 or absent: one choice per request", anyOf: [{ type: "null" }, { const: 1 }] },
    stream: { anyOf: [{ type: "boolean" }, { type: "null" }] },
    stream_options: { anyOf: [{ type: "null" }, { type: "object", properties: { include_usage: { type: "boolean" } } }] },
  },
} as const;
type ChatBody = TypeOf<typeof chatBodySchema>;
const check = bodyChecker("chatCompletionsBody", chatBodySchema);

function toAgentMessage(message: ChatBody["messages"][number]): ChatMessage {
  const body = textOf(message.content);
  switch (message.role) {
    case "system":
    case "developer":
      return { role: "system", content: body };
    case "user":
      return { role: "user", content: body };
    case "tool":
      return { role: "tool", tool_call_id: message.tool_call_id!, content: body };
    case "assistant": {
      const calls = (message.tool_calls ?? []).map((c) => ({
        id: c.id,
        type: "function" as const,
        function: { name: c.function.name, arguments: c.function.arguments },
      }));
      return {
        role: "assistant",
        content: message.content === null || message.content === undefined ? null : body,
        ...(calls.length > 0 ? { tool_calls: calls } : {}),
      };
    }
  }
}

export const chatCompletionsApi: CompatApi = {
  family: "openai",
  parse(raw): CompatRequest {
    const body = check(raw);
    return {
      model: body.model,
      messages: body.messages.map(toAgentMessage),
      tools: (body.tools ?? []).map((t) => clientToolSpec(t.function.name, t.function.description, t.function.parameters)),
      stream: body.stream === true,
      includeUsage: body.stream_options?.include_usage === true,
    };
  },
  newId: () => `chatcmpl-${randomUUID().replace(/-/g, "")}`,
  whole: chatCompletionOf,
  writer: (head, request) => new ChatStreamWriter(head, request.includeUsage),
};
