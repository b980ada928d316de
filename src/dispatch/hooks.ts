/**
 * Hook contracts (docs/architecture.md, the call path). Several hooks of a kind run in order; the first block wins; a
 * hook that throws blocks the call (fail closed) and the outcome says so.
 */
import type { ToolIdentity } from "../catalog/types.js";
import type { CallOutcome } from "./types.js";

export interface ToolCallInfo extends ToolIdentity {
  args: Record<string, unknown>;
  sessionId: string;
  agentId?: string;
  runId: string;
}

export type BeforeToolCallResult = void | undefined | { block: true; reason?: string } | { args: Record<string, unknown> };
export type BeforeToolCallHook = (call: ToolCallInfo) => BeforeToolCallResult | Promise<BeforeToolCallResult>;

export type ApprovalDecision = boolean | { approved: boolean; reason?: string };
export type ApproveHook = (call: Omit<ToolCallInfo, "toolset">) => ApprovalDecision | Promise<ApprovalDecision>;

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

/** The hooks as lists (createToolSearch's options schema checked that each is a function). */
export function normalizeHooks(hooks: ToolHooks | undefined): HookLists {
  const list = <T>(value: OneOrMany<T> | undefined): readonly T[] => (value === undefined ? [] : Array.isArray(value) ? value : [value as T]);
  return { beforeToolCall: list(hooks?.beforeToolCall), approve: list(hooks?.approve), afterToolCall: list(hooks?.afterToolCall) };
}
