/**
 * `POST /v1/responses`, as OpenAI's Responses API used statelessly: `input` (a string, or
 * message, function_call and function_call_output items) and `instructions` are the turn,
 * function `tools` its client tools. Nothing is stored, so `previous_response_id` and
 * `conversation` are refused: the client sends the whole conversation each time. Reasoning
 * items and item references it sends back are skipped: they name what a provider stored (the
 * AI SDK refers to an earlier answer's text that way by default), which here is nothing. Text
 * content only.
 */
import { randomUUID } from "node:crypto";
import { responseOf } from "../../wire/reply.js";
import { ResponsesStreamWriter } from "../../wire/responses-stream.js";
import { responsesToChat } from "../../wire/to-chat.js";
import type { ResponsesRequest } from "../../wire/wire-types.js";
import { declared } from "../../validation/typed-schema.js";
import { bodyChecker, clientToolSpec, LIMITS, modelName, TOOL_CHOICE_WHY, type CompatApi, type CompatRequest } from "./compat-api.js";

// The API's objects are open (`as const`, not object()): fields the gateway does not read are accepted and left to the provider settings.
const text = { type: "string" } as const;
const parts = (what: string) => ({
  description: `a string, or a list of { type: ${what}, text } parts (only text content is supported)`,
  anyOf: [
    { type: "string" },
    {
      type: "array",
      maxItems: LIMITS.parts,
      items: { type: "object", required: ["type", "text"], properties: { type: { enum: ["input_text", "output_text", "text"] }, text } },
    },
  ],
});
const id = { type: "string", minLength: 1, maxLength: LIMITS.id };
const typed = (type: string) => ({ type: "object", required: ["type"], properties: { type: { const: type } } });

const item = {
  type: "object",
  properties: {
    type: {
      description: '"message", "function_call", "function_call_output", "reasoning" or "item_reference" (the items a stateless conversation holds)',
      anyOf: ["message", "function_call", "function_call_output", "reasoning", "item_reference"].map((type) => ({ const: type })),
    },
    id: { type: "string" },
    role: { enum: ["user", "assistant", "system", "developer"] },
    content: parts('"input_text" or "output_text"'),
    call_id: id,
    name: id,
    arguments: text,
    output: parts('"input_text"'),
  },
  allOf: [
    { if: typed("function_call"), then: { required: ["call_id", "name", "arguments"] } },
    { if: typed("function_call_output"), then: { required: ["call_id", "output"] } },
    { if: { type: "object", not: { required: ["type"] } }, then: { required: ["role", "content"] } },
    { if: typed("message"), then: { required: ["role", "content"] } },
    { if: typed("item_reference"), then: { required: ["id"] } },
  ],
};

const stateless = { type: "null", description: "absent: the gateway keeps no responses; send the whole conversation as input" } as const;

/** A Responses request body, as far as the gateway reads it: `input` as the wire has it, checked here item by item. */
const responsesBodySchema = {
  type: "object",
  required: ["model", "input"],
  properties: {
    model: modelName,
    input: declared<ResponsesRequest["input"]>()({
      description: "a string, or a list of input items",
      anyOf: [
        { type: "string", minLength: 1 },
        { type: "array", minItems: 1, maxItems: LIMITS.messages, items: item },
      ],
    }),
    instructions: { anyOf: [{ type: "string" }, { type: "null" }] },
    previous_response_id: stateless,
    conversation: stateless,
    tools: {
      anyOf: [
        { type: "null" },
        {
          type: "array",
          maxItems: LIMITS.tools,
          items: {
            type: "object",
            required: ["type", "name"],
            properties: {
              type: { const: "function", description: '"function" (built-in tools such as web_search are not served by the gateway)' },
              name: { type: "string", minLength: 1, maxLength: LIMITS.name },
              description: { anyOf: [{ type: "string", maxLength: LIMITS.description }, { type: "null" }] },
              parameters: { anyOf: [{ type: "object" }, { type: "null" }] },
            },
          },
        },
      ],
    },
    tool_choice: { description: `"auto" or absent: ${TOOL_CHOICE_WHY}`, anyOf: [{ type: "null" }, { const: "auto" }] },
    stream: { anyOf: [{ type: "boolean" }, { type: "null" }] },
  },
} as const;
const check = bodyChecker("responsesBody", responsesBodySchema);

export const responsesApi: CompatApi = {
  family: "openai",
  parse(raw): CompatRequest {
    const body = check(raw);
    const { messages } = responsesToChat({ model: body.model, input: body.input, ...(body.instructions ? { instructions: body.instructions } : {}) });
    return {
      model: body.model,
      messages,
      tools: (body.tools ?? []).map((t) => clientToolSpec(t.name, t.description ?? undefined, t.parameters)),
      stream: body.stream === true,
      includeUsage: true,
    };
  },
  newId: () => `resp_${randomUUID().replace(/-/g, "")}`,
  whole: (reply) => ({ ...responseOf(reply) }),
  writer: (head) => new ResponsesStreamWriter(head),
};
