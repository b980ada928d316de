/**
 * What each compatible route is: how its body is read (checked against its schema, then turned
 * into a turn's messages and client tools) and how a reply is written back, whole or streamed.
 * chat-completions.ts, responses.ts and messages.ts are the three; compat-routes.ts serves them
 * the same way.
 */
import type { AgentMessage } from "../../agent/agent-turn.js";
import { HttpError, errorMessage } from "../../errors.js";
import { compileOptions } from "../../validation/ajv.js";
import { string, type Filled } from "../../validation/typed-schema.js";
import type { Reply, ReplyHead } from "../../wire/reply.js";
import type { ReplyStreamWriter } from "../../wire/reply-stream.js";
import type { ClientToolSpec } from "../run-request.js";

export interface CompatRequest {
  /** The alias the client named (provider.models). */
  model: string;
  messages: AgentMessage[];
  tools: ClientToolSpec[];
  stream: boolean;
  /** Chat's `stream_options.include_usage`. */
  includeUsage: boolean;
}

export interface CompatApi {
  /** Whose error shape and model listing the route answers with. */
  readonly family: "openai" | "anthropic";
  /** Reads a body already parsed as JSON; a bad one is BAD_REQUEST naming what was wrong. */
  parse(body: unknown): CompatRequest;
  /** A fresh answer id in the API's own form. */
  newId(): string;
  whole(reply: Reply): Record<string, unknown>;
  writer(head: ReplyHead, request: CompatRequest): ReplyStreamWriter;
}

/** Bounds shared by the three request schemas (the body's byte cap bounds the rest). */
export const LIMITS = { messages: 500, tools: 128, parts: 256, calls: 128, name: 128, id: 256, description: 4000 } as const;

export const modelName = string({ minLength: 1, maxLength: 256, description: "the name of a model the gateway lists (GET /v1/models)" });

/**
 * A body checked in place against `schema` (`name`: its precompiled validator): the value, typed
 * as the schema says (Filled), or BAD_REQUEST with ajv's wording.
 */
export function bodyChecker<const S extends object>(name: string, schema: S): (body: unknown) => Filled<S> {
  const check = compileOptions(name, schema, { copy: false });
  return (body) => {
    if (typeof body !== "object" || body === null || Array.isArray(body)) throw new HttpError("BAD_REQUEST", "body: must be a JSON object");
    try {
      return check(body, "body");
    } catch (error) {
      throw new HttpError("BAD_REQUEST", errorMessage(error));
    }
  };
}

/** A client tool as the engine takes it; a tool without parameters takes an empty object. */
export function clientToolSpec(name: string, description: string | undefined, parameters: unknown): ClientToolSpec {
  const inputSchema = typeof parameters === "object" && parameters !== null ? (parameters as Record<string, unknown>) : { type: "object", properties: {} };
  return { name, description: description ?? "", inputSchema };
}

/** Why a tool choice other than automatic is refused: which tools the model sees is the surface's. */
export const TOOL_CHOICE_WHY = "the gateway's surface decides which tools the model sees, so a forced or disabled tool choice is not supported";
