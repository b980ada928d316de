/**
 * A client tool as the engine sees it: client tools run on the client, not here, so a call to
 * one goes through the same call path (policy, hooks, approval, telemetry), is recorded in
 * `calls` for the response to hand back, and the model is told `status`.
 */
import type { ToolDefinition } from "../catalog/types.js";
import type { ClientToolSpec } from "./run-request.js";

export interface ClientToolCall {
  name: string;
  args: Record<string, unknown>;
}

export function clientToolOf(spec: ClientToolSpec, calls: ClientToolCall[], status: string): ToolDefinition {
  return {
    name: spec.name,
    description: spec.description,
    inputSchema: spec.inputSchema,
    execute(args) {
      calls.push({ name: spec.name, args });
      return { status, tool: spec.name };
    },
  };
}
