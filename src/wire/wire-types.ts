/**
 * The subsets of the OpenAI Responses API and the Anthropic Messages API that the agent loop,
 * the scripted provider and the gateway's compatible routes exchange (function tools only).
 */
import type { AnthropicTool, OpenAIResponsesTool } from "../surfaces/formats.js";

export type ProviderApi = "chat" | "responses" | "anthropic";
export const PROVIDER_APIS: readonly ProviderApi[] = ["chat", "responses", "anthropic"];

export type ResponsesInputItem =
  | { role: "system" | "developer" | "user" | "assistant"; content: string | Array<{ type: string; text?: string }>; type?: "message" }
  | { type: "function_call"; call_id: string; name: string; arguments: string; id?: string }
  | { type: "function_call_output"; call_id: string; output: string };

export interface ResponsesRequest {
  model: string;
  instructions?: string | null;
  input: string | ResponsesInputItem[];
  tools?: OpenAIResponsesTool[];
  store?: boolean;
}

export type ResponsesOutputItem =
  | { type: "message"; id: string; role: "assistant"; status?: string; content: Array<{ type: "output_text"; text: string; annotations?: unknown[] }> }
  | { type: "function_call"; id: string; call_id: string; name: string; arguments: string; status?: string };

export interface ResponsesResponse {
  id: string;
  object: "response";
  created_at: number;
  model: string;
  status: "completed" | "in_progress" | "failed";
  error?: { code: string; message: string } | null;
  incomplete_details?: null;
  output: ResponsesOutputItem[];
  usage?: {
    input_tokens: number;
    output_tokens: number;
    total_tokens: number;
    input_tokens_details?: { cached_tokens: number };
    output_tokens_details?: { reasoning_tokens: number };
  } | null;
}

export type AnthropicContentBlock =
  | { type: "text"; text: string }
  | { type: "tool_use"; id: string; name: string; input: unknown }
  | { type: "tool_result"; tool_use_id: string; content: string | Array<{ type: "text"; text: string }>; is_error?: boolean };

export interface AnthropicMessage {
  role: "user" | "assistant";
  content: string | AnthropicContentBlock[];
}

export interface AnthropicRequest {
  model: string;
  max_tokens: number;
  system?: string | Array<{ type: "text"; text: string }>;
  messages: AnthropicMessage[];
  tools?: AnthropicTool[];
}

export interface AnthropicResponse {
  id: string;
  type: "message";
  role: "assistant";
  model: string;
  content: AnthropicContentBlock[];
  stop_reason: "end_turn" | "tool_use" | "max_tokens" | null;
  stop_sequence: null;
  usage: { input_tokens: number; output_tokens: number };
}
