/**
 * Hook contracts (docs/architecture.md, the call path). Several hooks of a kind run in order; the first block wins; a
 * hook that throws blocks the call (fail closed) and the outcome says so.
 */
import type { ToolSource } from "../catalog/types.js";
import { ConfigInvalidError } from "../errors.js";
import type { CallOutcome } from "./types.js";

export interface ToolCallInfo {
  id: string;
  name: string;
  source: ToolSource;
  /** The tool's provider: "core", "client", a plugin id or an MCP server name. Not `RunContext.owner`. */
  owner: string;
  args: Record<string, unknown>;
  sessionId: string;
  agentId?: string;
  runId: string;
}

export type BeforeToolCallResult = void | undefined | { block: true; reason?: string } | { args: Record<string, unknown> };
export type BeforeToolCallHook = (call: ToolCallInfo) => BeforeToolCallResult | Promise<BeforeToolCallResult>;

export type ApprovalDecision = boolean | { approved: boolean; reason?: string };
export type ApproveHook = (call: Omit<ToolCallInfo, "owner">) => ApprovalDecision | Promise<ApprovalDecision>;

export type AfterToolCallHook = (call: ToolCallInfo & { outcome: CallOutcome; ms: number }) => void | Promise<void>;

type OneOrMany<T> = T | readonly T[];

export interface ToolHooks {
  beforeToolCall?: OneOrMany<BeforeToolCallHook>;
  approve?: OneOrMany<ApproveHook>;
  afterToolCall?: OneOrMany<AfterToolCallHook>;
}

export interface HookLists {
  beforeToolCall: readonly BeforeToolCallHook[];
  approve: readonly ApproveHook[];
  afterToolCall: readonly AfterToolCallHook[];
}

export function normalizeHooks(hooks: ToolHooks | undefined): HookLists {
  return {
    beforeToolCall: toList(hooks?.beforeToolCall, "beforeToolCall"),
    approve: toList(hooks?.approve, "approve"),
    afterToolCall: toList(hooks?.afterToolCall, "afterToolCall"),
  };
}

function toList<T>(value: OneOrMany<T> | undefined, name: string): readonly T[] {
  if (value === undefined) return [];
  const list = (Array.isArray(value) ? value : [value]) as T[];
  for (const hook of list) {
    if (typeof hook !== "function") throw new ConfigInvalidError(`hooks.${name} must be a function or an array of functions; got ${typeof hook}`);
  }
  return list;
}
