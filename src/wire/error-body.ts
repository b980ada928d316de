/**
 * Errors in each API's own shape, so that a client SDK raises its usual exception class (chosen
 * by the HTTP status) with a message it can show: OpenAI's `{ error: { message, type, param,
 * code } }` and Anthropic's `{ type: "error", error: { type, message } }`. `code` is the
 * toolsearch code (src/errors.ts); Anthropic's shape has no such field, so it is added beside
 * `type`, where clients ignore it.
 */
export interface WireError {
  status: number;
  /** The toolsearch code (ERROR_CODES). */
  code: string;
  message: string;
}

export interface OpenAiErrorObject {
  message: string;
  type: string;
  param: null;
  code: string;
}

export function openAiError(error: WireError): OpenAiErrorObject {
  const type = error.status === 429 ? "rate_limit_error" : error.status >= 500 ? "server_error" : "invalid_request_error";
  return { message: error.message, type, param: null, code: error.code };
}

export function openAiErrorBody(error: WireError): { error: OpenAiErrorObject } {
  return { error: openAiError(error) };
}

const ANTHROPIC_TYPES: Readonly<Record<number, string>> = {
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  413: "request_too_large",
  429: "rate_limit_error",
  503: "overloaded_error",
};

export interface AnthropicErrorBody {
  type: "error";
  error: { type: string; message: string; code: string };
}

export function anthropicErrorBody(error: WireError): AnthropicErrorBody {
  const type = ANTHROPIC_TYPES[error.status] ?? (error.status >= 500 ? "api_error" : "invalid_request_error");
  return { type: "error", error: { type, message: error.message, code: error.code } };
}
