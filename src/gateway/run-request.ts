/** `POST /v1/runs` bodies, validated with ajv: a clear 400 names what was wrong. */
import { compileOptions } from "../validation/ajv.js";
import type { ToolSearchMode } from "../settings/tool-search-config.js";
import { runIdentityProperties } from "../engine/options.js";
import { HttpError } from "../errors.js";
import type { ChatMessage } from "../wire/chat-types.js";

export interface ClientToolSpec {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

export interface RunRequest {
  sessionId: string;
  agentId?: string;
  profile?: string;
  channel?: string;
  owner?: boolean;
  input?: string;
  messages?: ChatMessage[];
  clientTools?: ClientToolSpec[];
  /** Overrides the gateway's mode for this run (A/B comparisons, the main job). */
  mode?: ToolSearchMode;
}

const text = { type: "string", minLength: 1, maxLength: 256 };
const schema = {
  type: "object",
  additionalProperties: false,
  required: ["sessionId"],
  properties: {
    sessionId: text,
    ...runIdentityProperties(text),
    input: { type: "string", minLength: 1 },
    messages: {
      type: "array",
      minItems: 1,
      maxItems: 500,
      items: {
        type: "object",
        required: ["role"],
        properties: { role: { enum: ["system", "user", "assistant", "tool"] }, content: { type: ["string", "null"] } },
      },
    },
    clientTools: {
      type: "array",
      maxItems: 128,
      items: {
        type: "object",
        additionalProperties: false,
        required: ["name", "description", "inputSchema"],
        properties: {
          name: { type: "string", minLength: 1, maxLength: 128 },
          description: { type: "string", maxLength: 4000 },
          inputSchema: { type: "object" },
        },
      },
    },
  },
  oneOf: [{ required: ["input"] }, { required: ["messages"] }],
};

// Bodies are parsed from JSON for this request alone: checked in place, not copied.
const check = compileOptions<RunRequest>("runRequest", schema, { copy: false });

/** The request, or BAD_REQUEST (400) naming what was wrong. */
export function parseRunRequest(body: unknown): RunRequest {
  refuseProviderShapedTools(body);
  try {
    return check(body, "body");
  } catch (error) {
    const both = typeof body === "object" && body !== null && "input" in body === "messages" in body;
    throw new HttpError("BAD_REQUEST", both ? 'body: give exactly one of "input" (a string) or "messages" (a list)' : (error as Error).message);
  }
}

/**
 * A client tool written in a provider's format (OpenAI's `{ type: "function", function: {…} }`,
 * Anthropic's `input_schema`) is the commonest first mistake: said as the shape to use, not as
 * ajv's "unknown option".
 */
function refuseProviderShapedTools(body: unknown): void {
  const tools = (body as { clientTools?: unknown } | null)?.clientTools;
  if (!Array.isArray(tools)) return;
  const SHAPE = "{ name, description, inputSchema } (inputSchema: a JSON Schema object)";
  for (const [i, tool] of tools.slice(0, 128).entries()) {
    if (typeof tool !== "object" || tool === null) continue;
    if ("function" in tool || (tool as { type?: unknown }).type === "function") {
      throw new HttpError("BAD_REQUEST", `body.clientTools.${i}: looks like an OpenAI tool ({ type: "function", function: {…} }); use ${SHAPE}`);
    }
    if ("input_schema" in tool || "parameters" in tool) {
      throw new HttpError("BAD_REQUEST", `body.clientTools.${i}: "${"input_schema" in tool ? "input_schema" : "parameters"}" is not a key here; use ${SHAPE}`);
    }
  }
}
