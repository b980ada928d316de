/**
 * `POST /v1/messages`, as Anthropic's Messages API: `system` and `messages` (text, tool_use and
 * tool_result blocks; thinking blocks sent back are skipped) are the turn, `tools` (custom tools
 * with an `input_schema`) its client tools. Text content only; server tools (web search, code
 * execution) and tool choices other than "auto" are refused. `max_tokens` is accepted; the
 * gateway's provider.maxTokens applies.
 */
import { randomUUID } from "node:crypto";
import { AnthropicStreamWriter } from "../../wire/anthropic-stream.js";
import { anthropicMessageOf } from "../../wire/reply.js";
import { anthropicToChat } from "../../wire/to-chat.js";
import type { AnthropicRequest } from "../../wire/wire-types.js";
import { declared } from "../../validation/typed-schema.js";
import { bodyChecker, clientToolSpec, LIMITS, modelName, TOOL_CHOICE_WHY, type CompatApi, type CompatRequest } from "./compat-api.js";
import { definedProps } from "../../defined.js";

// The API's objects are open (`as const`, not object()): fields the gateway does not read are accepted and left to the provider settings.
const text = { type: "string" } as const;
const textBlocks = {
  type: "array",
  maxItems: LIMITS.parts,
  items: { type: "object", required: ["type", "text"], properties: { type: { const: "text" }, text } },
} as const;
const typed = (type: string) => ({ type: "object", required: ["type"], properties: { type: { const: type } } });
const id = { type: "string", minLength: 1, maxLength: LIMITS.id } as const;

const block = {
  type: "object",
  required: ["type"],
  properties: {
    type: {
      description: '"text", "tool_use", "tool_result" (or thinking blocks sent back); images and documents are not supported',
      anyOf: ["text", "tool_use", "tool_result", "thinking", "redacted_thinking"].map((type) => ({ const: type })),
    },
    text,
    id,
    name: id,
    input: { type: "object" },
    tool_use_id: id,
    content: { description: 'a string, or a list of { type: "text", text } blocks', anyOf: [{ type: "string" }, textBlocks] },
    is_error: { type: "boolean" },
  },
  allOf: [
    { if: typed("text"), then: { required: ["text"] } },
    { if: typed("tool_use"), then: { required: ["id", "name", "input"] } },
    { if: typed("tool_result"), then: { required: ["tool_use_id"] } },
  ],
};

/** A Messages request body, as far as the gateway reads it: `system` and `messages` as the wire has them, checked here block by block. */
const messagesBodySchema = {
  type: "object",
  required: ["model", "messages"],
  properties: {
    model: modelName,
    max_tokens: { type: "integer", minimum: 1 },
    system: declared<NonNullable<AnthropicRequest["system"]>>()({
      description: 'a string, or a list of { type: "text", text } blocks',
      anyOf: [{ type: "string" }, textBlocks],
    }),
    messages: declared<AnthropicRequest["messages"]>()({
      type: "array",
      minItems: 1,
      maxItems: LIMITS.messages,
      items: {
        type: "object",
        required: ["role", "content"],
        properties: {
          role: { enum: ["user", "assistant"] },
          content: {
            description: "a string, or a list of content blocks",
            anyOf: [{ type: "string" }, { type: "array", maxItems: LIMITS.parts, items: block }],
          },
        },
      },
    }),
    tools: {
      type: "array",
      maxItems: LIMITS.tools,
      items: {
        type: "object",
        required: ["name", "input_schema"],
        properties: {
          type: { const: "custom", description: '"custom" or absent (server tools such as web search are not served by the gateway)' },
          name: { type: "string", minLength: 1, maxLength: LIMITS.name },
          description: { type: "string", maxLength: LIMITS.description },
          input_schema: { type: "object" },
        },
      },
    },
    tool_choice: {
      type: "object",
      required: ["type"],
      properties: { type: { const: "auto", description: `"auto": ${TOOL_CHOICE_WHY}` } },
    },
    stream: { type: "boolean" },
  },
} as const;
const check = bodyChecker("messagesBody", messagesBodySchema);

export const messagesApi: CompatApi = {
  family: "anthropic",
  parse(raw): CompatRequest {
    const body = check(raw);
    const { messages } = anthropicToChat({
      model: body.model,
      max_tokens: 1,
      messages: body.messages,
      ...definedProps({ system: body.system }),
    });
    return {
      model: body.model,
      messages,
      tools: (body.tools ?? []).map((t) => clientToolSpec(t.name, t.description, t.input_schema)),
      stream: body.stream === true,
      includeUsage: true,
    };
  },
  newId: () => `msg_${randomUUID().replace(/-/g, "")}`,
  whole: (reply) => ({ ...anthropicMessageOf(reply) }),
  writer: (head) => new AnthropicStreamWriter(head),
};
