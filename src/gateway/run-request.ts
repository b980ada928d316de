/** `POST /v1/runs` bodies, validated with ajv: a clear 400 names what was wrong. */
import { compileOptions } from "../validation/ajv.js";
import { arrayOf, declared, object, string, type TypeOf } from "../validation/typed-schema.js";
import { runIdentityProperties, type RunContext } from "../engine/options.js";
import { HttpError } from "../errors.js";
import type { ChatMessage } from "../wire/chat-types.js";

const text = string({ minLength: 1, maxLength: 256 });

/** A tool the client brings to its run: offered to the model beside the catalog's, its calls answered by the client. */
const clientToolSchema = object(
  {
    name: string({ minLength: 1, maxLength: 128 }),
    description: string({ maxLength: 4000 }),
    inputSchema: declared<Record<string, unknown>>()({ type: "object" }),
  },
  { required: ["name", "description", "inputSchema"] },
);

/** A client tool as a request brings it (clientToolSchema). */
export type ClientToolSpec = TypeOf<typeof clientToolSchema>;

/** The body's own fields; the identity fields are the run context's (runIdentityProperties). */
const bodySchema = object(
  {
    /** The run's session (RunContext.sessionId). */
    sessionId: text,
    /** The user's prompt, as one user message; or `messages`. */
    input: string({ minLength: 1 }),
    /**
     * The conversation so far, in the Chat Completions shape; or `input`. Each message's role and
     * content are checked here, the rest is the wire's (ChatMessage).
     */
    messages: declared<ChatMessage[]>()({
      type: "array",
      minItems: 1,
      maxItems: 500,
      items: {
        type: "object",
        required: ["role"],
        properties: { role: { enum: ["system", "user", "assistant", "tool"] }, content: { type: ["string", "null"] } },
      },
    }),
    /** Tools the client runs itself: a call to one comes back in the answer's `clientToolCalls`. */
    clientTools: arrayOf(clientToolSchema, { maxItems: 128 }),
  },
  { required: ["sessionId"] },
);
const { sessionId, ...bodyProperties } = bodySchema.properties;
const schema = {
  ...bodySchema,
  properties: { sessionId, ...runIdentityProperties(text), ...bodyProperties },
  oneOf: [{ required: ["input"] }, { required: ["messages"] }],
};

/** A `POST /v1/runs` body: its own fields (bodySchema) and who the run is for, as the run context names it. */
export type RunRequest = TypeOf<typeof bodySchema> & Pick<RunContext, "agentId" | "profile" | "channel" | "owner" | "mode">;

// Bodies are parsed from JSON for this request alone: checked in place, not copied.
const check = compileOptions("runRequest", schema, { copy: false });

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
