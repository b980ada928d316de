/** `POST /v1/runs` bodies, validated with ajv: a clear 400 names what was wrong. */
import { createOptionsAjv, describeAjvErrors } from "../config/ajv.js";
import type { ChatMessage } from "../provider/chat-types.js";

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
  mode?: "direct" | "code" | "tools" | "directory";
}

const text = { type: "string", minLength: 1, maxLength: 256 };
const schema = {
  type: "object",
  additionalProperties: false,
  required: ["sessionId"],
  properties: {
    sessionId: text,
    agentId: text,
    profile: text,
    channel: text,
    owner: { type: "boolean" },
    mode: { enum: ["direct", "code", "tools", "directory"] },
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
        properties: { name: { type: "string", minLength: 1, maxLength: 128 }, description: { type: "string", maxLength: 4000 }, inputSchema: { type: "object" } },
      },
    },
  },
  oneOf: [{ required: ["input"] }, { required: ["messages"] }],
};

const validate = createOptionsAjv().compile<RunRequest>(schema);

/** The request, or a message naming what was wrong. */
export function parseRunRequest(body: unknown): { ok: true; request: RunRequest } | { ok: false; message: string } {
  if (validate(body)) return { ok: true, request: body };
  const oneOf = validate.errors?.some((e) => e.keyword === "oneOf" && e.instancePath === "");
  return { ok: false, message: oneOf ? 'body: give exactly one of "input" (a string) or "messages" (a list)' : describeAjvErrors("body", validate.errors, body) };
}
