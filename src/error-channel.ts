/**
 * Failures that fail no call and no run, but must not vanish: a catalog rebuild refused (the
 * previous catalog is kept), an MCP output schema that will not be enforced, an afterToolCall
 * hook or a session-log sink that threw. Each is published on `node:diagnostics_channel`
 * ("toolsearch:error"), beside the run events of "toolsearch:event", at no cost when unused.
 */
import diagnostics from "node:diagnostics_channel";
import { InternalError, toErrorPayload, ToolSearchError, type ErrorCode, type ErrorPayload } from "./errors.js";
import type { FailureEvent, FailureOrigin } from "./failure-event.js";

export const ERROR_CHANNEL = "toolsearch:error";
const channel = diagnostics.channel(ERROR_CHANNEL);

export type { FailureEvent, FailureOrigin } from "./failure-event.js";

export type FailureContext = Pick<FailureEvent, "sessionId" | "runId" | "toolId" | "server">;

/** Publishes one failure and returns it (the catalog also keeps the last one for its status). */
export function publishFailure(origin: FailureOrigin, error: unknown, context: FailureContext = {}, fallback: ErrorCode = "TOOL_FAILED"): FailureEvent {
  const event: FailureEvent = { origin, ...toErrorPayload(error, fallback), time: new Date().toISOString(), ...context, error };
  if (channel.hasSubscribers) channel.publish(event);
  return event;
}

/**
 * What a caller is answered for anything thrown: a ToolSearchError as it is; anything else is a
 * fault of ours (INTERNAL), published here with its detail and answered without it, since the
 * detail may hold paths or secrets the model and the client must not see.
 */
export function answerError(error: unknown, context: FailureContext = {}): ToolSearchError {
  if (error instanceof ToolSearchError) return error;
  publishFailure("internal", error, context, "INTERNAL");
  return new InternalError(undefined, { cause: error });
}

/** answerError as the `{ code, message }` a model or caller reads. */
export function answerPayload(error: unknown, context: FailureContext = {}): ErrorPayload {
  return answerError(error, context).toJSON();
}
