/**
 * One turn of the OpenAI- and Anthropic-compatible routes. The request's messages are the
 * conversation and its tools the run's client tools; the catalog sits behind the configured
 * surface, and every call the model makes, a client tool's included, takes the run's one call
 * path (policy, hooks, approval, telemetry). A call that reaches a client tool is not answered
 * here: the turn ends after that response and the call goes back to the client, which runs it
 * and sends the result in its next request, as it would to the provider (nothing is kept
 * between requests). Calls to the catalog's tools run here, before the answer.
 *
 * Identity is the bearer token's (or, without gateway.auth, nobody's): no body field of these
 * APIs (`user`, `metadata`) is read for it. The model alias may name a mode, which the token
 * must allow like a /v1/runs body's `mode`.
 */
import { randomUUID } from "node:crypto";
import { runAgentTurn, type AgentMessage, type AgentProvider, type AgentToolCall, type AgentTurnInput } from "../../agent/agent-turn.js";
import type { ModelAlias } from "../../config/server-config.js";
import type { ToolSearchEngine } from "../../engine/engine.js";
import type { ToolSearchRun } from "../../engine/run.js";
import { CancelledError, HttpError, ToolSearchError, TurnBudgetError } from "../../errors.js";
import { identityFromToken, loopbackIdentity, tokenTenant, type RunIdentity, type TokenIdentity } from "../../auth/token-auth.js";
import type { ReplyCall, ReplyUsage } from "../../wire/reply.js";
import type { ClientToolSpec } from "../run-request.js";
import { clientToolOf } from "../client-tool.js";
import { definedProps } from "../../defined.js";

/** What a turn needs from the gateway that serves it. */
export interface CompatTurnContext {
  engine: ToolSearchEngine;
  provider: AgentProvider;
  /** `gateway.trustLoopbackIdentity`. */
  trustLoopbackIdentity: boolean;
  /** The gateway's turn budgets (maxTurns, deadlines, byte caps). */
  budgets: Pick<AgentTurnInput, "maxTurns" | "timeoutMs" | "turnTimeoutMs" | "maxTurnResultBytes" | "maxRequestBytes">;
}

/** A compatible request, whatever its API, read as a turn. */
export interface CompatTurnRequest {
  alias: ModelAlias;
  messages: AgentMessage[];
  tools: ClientToolSpec[];
}

export interface CompatTurnOutcome {
  text: string | null;
  /** Calls to client tools, for the client to run; empty when the model answered. */
  calls: ReplyCall[];
  usage: ReplyUsage;
  runId: string;
  mode: string;
  /** The names of the calls the model made that ran here (control tools, catalog tools). */
  serverToolCalls: string[];
}

export interface CompatTurnHooks {
  /** The model's text as it arrives (the request streams). */
  onText?: (delta: string) => void;
  /** A call that ran here, by the name the model used. */
  onServerCall?: (name: string) => void;
}

/** A prepared turn: refused before anything is sent to the client when the run cannot be prepared. */
export interface PreparedCompatTurn {
  readonly runId: string;
  readonly sessionId: string;
  run(signal: AbortSignal, hooks?: CompatTurnHooks): Promise<CompatTurnOutcome>;
}

/** What a client tool's call answers in the call path; the model reads it only when its code body goes on after the call. */
const SENT_TO_CLIENT = "sent_to_client";

export async function prepareCompatTurn(context: CompatTurnContext, request: CompatTurnRequest, identity: TokenIdentity | null): Promise<PreparedCompatTurn> {
  const { engine } = context;
  const asked: RunIdentity = definedProps({ mode: request.alias.mode });
  const who = identity ? identityFromToken(asked, identity, engine.settings.mode) : loopbackIdentity(asked, context.trustLoopbackIdentity);
  const pending: Array<{ name: string; args: Record<string, unknown> }> = [];
  const sessionId = `compat-${randomUUID()}`;
  let run: ToolSearchRun;
  try {
    run = await engine.prepareRun({
      sessionId,
      ...(identity ? { tenant: tokenTenant(identity) } : {}),
      ...definedOnly(who),
      prompt: lastUserText(request.messages),
      clientTools: request.tools.map((spec) => clientToolOf(spec, pending, SENT_TO_CLIENT)),
    });
  } catch (error) {
    if (error instanceof ToolSearchError) throw new HttpError(error.code, error.message, {}, 400);
    throw error;
  }
  return {
    runId: run.runId,
    sessionId,
    run: (signal, hooks = {}) => runTurn(context, request, run, pending, signal, hooks),
  };
}

async function runTurn(
  context: CompatTurnContext,
  request: CompatTurnRequest,
  run: ToolSearchRun,
  pending: Array<{ name: string; args: Record<string, unknown> }>,
  signal: AbortSignal,
  hooks: CompatTurnHooks,
): Promise<CompatTurnOutcome> {
  const handedBack: ReplyCall[] = [];
  const serverToolCalls: string[] = [];
  // A model call that reached client tools (directly, or through tool_call or a code body) is
  // handed back under its own id; a second reached by the same model call gets the id with a suffix.
  const onToolCall = (call: AgentToolCall): boolean => {
    const taken = pending.splice(0);
    taken.forEach(({ name, args }, k) => handedBack.push({ id: k === 0 ? call.id : `${call.id}_${k + 1}`, name, arguments: JSON.stringify(args) }));
    if (taken.length > 0) return true;
    serverToolCalls.push(call.name);
    hooks.onServerCall?.(call.name);
    return false;
  };
  try {
    const turn = await runAgentTurn({
      run,
      provider: withModel(context.provider, request.alias.model),
      messages: request.messages,
      ...context.budgets,
      signal,
      onToolCall,
      ...(hooks.onText ? { onText: hooks.onText } : {}),
    });
    if (turn.status === "max_turns") {
      throw new TurnBudgetError(
        `The model made ${turn.roundTrips} round trips of tool calls without answering (gateway.maxTurns); ask for less, or raise the limit.`,
      );
    }
    return { text: turn.answer, calls: handedBack, usage: turn.usage, runId: run.runId, mode: run.mode, serverToolCalls };
  } catch (error) {
    // Whatever failed once the caller hung up failed because it did: nobody is left to tell otherwise.
    if (signal.aborted) throw new CancelledError("The caller closed the connection.");
    throw error;
  } finally {
    await run.end();
  }
}

/** The gateway's provider asked for the alias's model. */
function withModel(provider: AgentProvider, model: string): AgentProvider {
  return { ...provider, model };
}

function definedOnly(identity: RunIdentity): RunIdentity {
  return Object.fromEntries(Object.entries(identity).filter(([, value]) => value !== undefined)) as RunIdentity;
}

function lastUserText(messages: readonly AgentMessage[]): string {
  const last = messages.findLast((m) => m.role === "user");
  return last?.content ?? "";
}
