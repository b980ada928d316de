/**
 * The one call path every surface uses (docs/architecture.md): validate → beforeToolCall hooks →
 * approve → execute (AbortSignal, timeout) → afterToolCall. Never throws: every failure,
 * block included, is a `{ ok: false, error: { code, message } }` outcome.
 */
import type { CatalogEntry } from "../catalog/types.js";
import { onAbort } from "../abort-listeners.js";
import {
  ApprovalDeniedError,
  CancelledError,
  errorMessage,
  HookBlockedError,
  InvalidArgsError,
  ToolFailedError,
  ToolSearchError,
  ToolTimeoutError,
  ToolUnavailableError,
} from "../errors.js";
import { answerPayload, publishFailure } from "../error-channel.js";
import { argsOverLimits, type ArgsLimits } from "../validation/args-limits.js";
import { describeAjvErrors } from "../validation/ajv.js";
import type { HookLists, ToolCallInfo } from "./hooks.js";
import type { CallOutcome } from "./types.js";
import { definedProps } from "../defined.js";

export interface CallEnvironment {
  hooks: HookLists;
  sessionId: string;
  agentId?: string;
  runId: string;
  /** Whose calls these are (RunContext.tenant, else the sessionId): what calls share is shared by it. */
  tenant: string;
  owner: boolean;
  /** Aborted when the run ends or the code-mode body making the call is killed. */
  signal: AbortSignal;
  timeoutMs: number;
  /** Arguments past these caps are refused before validation (schema keywords cost time in their size). */
  argsLimits: ArgsLimits;
}

/**
 * `callSignal`: the caller's own cancel for this one call (a code body killed), besides the
 * run's `env.signal`. Both are listened to directly: `AbortSignal.any` keeps every combined
 * signal alive on Node 20 once it had a listener, which leaked each run that made a call.
 */
export async function runCallPath(
  entry: CatalogEntry,
  rawArgs: unknown,
  env: CallEnvironment,
  callSignal?: AbortSignal,
): Promise<{ outcome: CallOutcome; ms: number }> {
  const started = performance.now();
  const info: ToolCallInfo = {
    id: entry.id,
    name: entry.name,
    source: entry.source,
    toolset: entry.toolset,
    args: {},
    sessionId: env.sessionId,
    ...definedProps({ agentId: env.agentId }),
    runId: env.runId,
  };
  let outcome: CallOutcome;
  try {
    info.args = validateArgs(entry, rawArgs ?? {}, env.argsLimits);
    // Without hooks a call takes no extra turn of the microtask queue, nor the objects they are shown.
    if (env.hooks.beforeToolCall.length > 0) info.args = await runBeforeHooks(entry, info, env);
    if (env.hooks.approve.length > 0) await runApproval(info, env);
    const result = await execute(entry, info.args, env, callSignal);
    outcome = { ok: true, id: entry.id, source: entry.source, result };
  } catch (error) {
    // Hooks' and tools' throws are classified where they are caught: anything else is ours (INTERNAL).
    outcome = { ok: false, id: entry.id, source: entry.source, error: answerPayload(error, { sessionId: env.sessionId, runId: env.runId, toolId: entry.id }) };
  }
  const ms = performance.now() - started;
  if (env.hooks.afterToolCall.length > 0) await runAfterHooks({ ...info, outcome, ms }, env);
  return { outcome, ms };
}

function validateArgs(entry: CatalogEntry, args: unknown, limits: ArgsLimits): Record<string, unknown> {
  if (typeof args !== "object" || args === null || Array.isArray(args)) {
    throw new InvalidArgsError(`Arguments for "${entry.id}" must be a JSON object; got ${Array.isArray(args) ? "array" : typeof args}.`);
  }
  const over = argsOverLimits(args, limits);
  if (over) throw new InvalidArgsError(`Arguments for "${entry.id}" were refused: ${over}. Send smaller arguments.`);
  const validate = entry.validator();
  if (!validate(args)) {
    throw new InvalidArgsError(
      `Invalid arguments for "${entry.id}": ${describeAjvErrors("args", validate.errors, { noun: "field" })}. Describe the tool to see its schema.`,
    );
  }
  return args as Record<string, unknown>;
}

async function runBeforeHooks(entry: CatalogEntry, info: ToolCallInfo, env: CallEnvironment): Promise<Record<string, unknown>> {
  let args = info.args;
  for (const hook of env.hooks.beforeToolCall) {
    let verdict;
    try {
      verdict = await hook({ ...info, args });
    } catch (error) {
      throw new HookBlockedError(`A beforeToolCall hook failed, so the call was blocked: ${errorMessage(error)}`);
    }
    if (verdict && "block" in verdict && verdict.block) {
      throw new HookBlockedError(`Blocked by a beforeToolCall hook${verdict.reason ? `: ${verdict.reason}` : "."}`);
    }
    if (verdict && "args" in verdict) args = validateArgs(entry, verdict.args, env.argsLimits);
  }
  return args;
}

async function runApproval(info: ToolCallInfo, env: CallEnvironment): Promise<void> {
  const { toolset: _toolset, ...request } = info;
  for (const approve of env.hooks.approve) {
    let decision;
    try {
      decision = await approve(request);
    } catch (error) {
      throw new ApprovalDeniedError(`The approval hook failed, so the call was denied: ${errorMessage(error)}`);
    }
    const approved = typeof decision === "boolean" ? decision : decision?.approved === true;
    if (!approved) {
      const reason = typeof decision === "object" && decision?.reason ? `: ${decision.reason}` : ".";
      throw new ApprovalDeniedError(`Approval denied for "${info.id}"${reason} Do not retry the same call.`);
    }
  }
}

async function execute(entry: CatalogEntry, args: Record<string, unknown>, env: CallEnvironment, callSignal: AbortSignal | undefined): Promise<unknown> {
  const unavailable = entry.unavailableReason?.();
  if (unavailable) throw new ToolUnavailableError(entry.id, unavailable);
  const signals = callSignal && callSignal !== env.signal ? [env.signal, callSignal] : [env.signal];
  const abortedBy = () => signals.find((signal) => signal.aborted);
  const already = abortedBy();
  if (already) throw cancelled(entry.id, already);
  const controller = new AbortController();
  let failure: ToolSearchError | undefined;
  let rejectAborted: (error: ToolSearchError) => void = () => {};
  const aborted = new Promise<never>((_, reject) => (rejectAborted = reject));
  const abort = (error: ToolSearchError) => {
    failure ??= error;
    controller.abort(failure);
    rejectAborted(failure);
  };
  const timer = setTimeout(
    () => abort(new ToolTimeoutError(`Tool "${entry.id}" timed out after ${env.timeoutMs} ms and was cancelled. Try again with less work, or another tool.`)),
    env.timeoutMs,
  );
  const onRunAbort = () => abort(cancelled(entry.id, abortedBy()!));
  const offs = signals.map((signal) => onAbort(signal, onRunAbort));
  try {
    const ctx = {
      id: entry.id,
      sessionId: env.sessionId,
      ...definedProps({ agentId: env.agentId }),
      runId: env.runId,
      tenant: env.tenant,
      owner: env.owner,
      signal: controller.signal,
    };
    const running = Promise.resolve().then(() => entry.definition.execute(args, ctx));
    // The tool may still settle after a timeout won the race; its late rejection is expected, not unhandled.
    running.catch(() => {});
    aborted.catch(() => {});
    return await Promise.race([running, aborted]);
  } catch (error) {
    if (error instanceof ToolSearchError) throw error;
    throw new ToolFailedError(`Tool "${entry.id}" failed: ${errorMessage(error)}`, { cause: error });
  } finally {
    clearTimeout(timer);
    for (const off of offs) off();
  }
}

/** CANCELLED, saying who cancelled (the run's end, the caller, the code run's end): the signal's reason says which. */
function cancelled(id: string, signal: AbortSignal): CancelledError {
  const reason: unknown = signal.reason;
  return new CancelledError(`Tool "${id}" was cancelled: ${reason instanceof CancelledError ? reason.message : "its signal was aborted."}`);
}

async function runAfterHooks(call: Parameters<HookLists["afterToolCall"][number]>[0], env: CallEnvironment): Promise<void> {
  for (const hook of env.hooks.afterToolCall) {
    try {
      await hook(call);
    } catch (error) {
      // afterToolCall observes; a failing observer must not change an outcome that already happened.
      publishFailure("after_tool_call", error, { sessionId: call.sessionId, runId: call.runId, toolId: call.id });
    }
  }
}
