/**
 * One agent turn: provider request → the model's tool calls through run.handleToolCall →
 * provider again, until the model answers or maxTurns round trips are spent. The provider is
 * any OpenAI-compatible endpoint, called with the official `openai` client.
 */
import type OpenAI from "openai";
import type { ToolSearchRun } from "../engine/run.js";
import type { ChatMessage } from "../provider/chat-types.js";

export interface TurnToolCall {
  name: string;
  arguments: string;
  /** The tool-message content the model got back. */
  content: string;
}

export interface TurnResult {
  status: "answered" | "max_turns";
  answer: string | null;
  toolCalls: TurnToolCall[];
  roundTrips: number;
}

export class ProviderError extends Error {
  readonly code = "PROVIDER_FAILED";
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

export interface TurnInput {
  client: OpenAI;
  model: string;
  run: ToolSearchRun;
  messages: ChatMessage[];
  maxTurns: number;
  timeoutMs: number;
}

export async function agentTurn({ client, model, run, messages, maxTurns, timeoutMs }: TurnInput): Promise<TurnResult> {
  const conversation: ChatMessage[] = [...(run.instructions ? [{ role: "system" as const, content: run.instructions }] : []), ...messages];
  const toolCalls: TurnToolCall[] = [];
  for (let trip = 1; trip <= maxTurns; trip += 1) {
    const message = await requestCompletion(client, model, run, conversation, timeoutMs);
    const calls = message.tool_calls?.filter((c) => c.type === "function") ?? [];
    if (calls.length === 0) return { status: "answered", answer: message.content ?? "", toolCalls, roundTrips: trip };
    conversation.push({ role: "assistant", content: message.content ?? null, tool_calls: calls.map((c) => ({ id: c.id, type: "function", function: c.function })) });
    for (const call of calls) {
      const content = await run.handleToolCall({ name: call.function.name, arguments: call.function.arguments });
      toolCalls.push({ name: call.function.name, arguments: call.function.arguments, content });
      conversation.push({ role: "tool", tool_call_id: call.id, content });
    }
  }
  return { status: "max_turns", answer: null, toolCalls, roundTrips: maxTurns };
}

async function requestCompletion(client: OpenAI, model: string, run: ToolSearchRun, messages: ChatMessage[], timeoutMs: number) {
  let completion;
  try {
    completion = await client.chat.completions.create(
      { model, messages: messages as OpenAI.Chat.ChatCompletionMessageParam[], ...(run.tools.length > 0 ? { tools: run.tools as OpenAI.Chat.ChatCompletionTool[] } : {}) },
      { timeout: timeoutMs, maxRetries: 0 },
    );
  } catch (error) {
    throw new ProviderError(`The model provider failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  const message = (completion as Partial<typeof completion>).choices?.[0]?.message;
  if (!message) throw new ProviderError("The model provider failed: its answer has no choices[0].message (not a chat completion).");
  return message;
}
