/**
 * Every failure the engine reports is a ToolSearchError with a stable `code`.
 * Callers match on `code` (or `instanceof`), never on message text; the message
 * says what was wrong and, for model-facing errors, what to do next.
 */
import { clip } from "./dispatch/prompt-text.js";

export type ErrorCode =
  | "CONFIG_INVALID"
  | "TOOL_NOT_FOUND"
  | "TOOL_UNAVAILABLE"
  | "AMBIGUOUS_TOOL_NAME"
  | "NAME_COLLISION"
  | "INVALID_ARGS"
  | "POLICY_DENIED"
  | "APPROVAL_DENIED"
  | "HOOK_BLOCKED"
  | "TOOL_FAILED"
  | "CODE_SYNTAX"
  | "CODE_THREW"
  | "CODE_TIMEOUT"
  | "CODE_LIMIT"
  | "SANDBOX_UNAVAILABLE"
  | "POOL_SATURATED"
  | "ENGINE_CLOSED"
  | "PROVIDER_FAILED";

export interface ErrorPayload {
  code: ErrorCode;
  message: string;
}

export class ToolSearchError extends Error {
  readonly code: ErrorCode;
  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.name = new.target.name;
  }
  toJSON(): ErrorPayload {
    return { code: this.code, message: this.message };
  }
}

export class ConfigInvalidError extends ToolSearchError {
  constructor(message: string, options?: { cause?: unknown }) {
    super("CONFIG_INVALID", message, options);
  }
}

/** Ids and names longer than this are never looked up or suggested for, and are clipped in messages. */
export const MAX_ID_CHARS = 256;

export class ToolNotFoundError extends ToolSearchError {
  readonly suggestions: readonly string[];
  constructor(id: string, suggestions: readonly string[] = []) {
    const hint = suggestions.length > 0 ? ` Did you mean: ${suggestions.join(", ")}?` : " Use search to find tool ids.";
    super("TOOL_NOT_FOUND", `No tool with id "${clip(id, MAX_ID_CHARS)}".${hint}`);
    this.suggestions = suggestions;
  }
}

export class ToolUnavailableError extends ToolSearchError {
  constructor(id: string, reason: string) {
    super("TOOL_UNAVAILABLE", `Tool "${id}" is unavailable: ${reason}. Try another tool or try again later.`);
  }
}

export class AmbiguousToolNameError extends ToolSearchError {
  constructor(name: string, candidates: readonly string[]) {
    super("AMBIGUOUS_TOOL_NAME", `Tool name "${name}" matches several tools (${candidates.join(", ")}); call one by its id.`);
  }
}

export class NameCollisionError extends ToolSearchError {
  constructor(message: string) {
    super("NAME_COLLISION", message);
  }
}

export class InvalidArgsError extends ToolSearchError {
  constructor(message: string) {
    super("INVALID_ARGS", message);
  }
}

export class PolicyDeniedError extends ToolSearchError {
  constructor(message: string) {
    super("POLICY_DENIED", message);
  }
}

export class ApprovalDeniedError extends ToolSearchError {
  constructor(message: string) {
    super("APPROVAL_DENIED", message);
  }
}

export class HookBlockedError extends ToolSearchError {
  constructor(message: string) {
    super("HOOK_BLOCKED", message);
  }
}

export class ToolFailedError extends ToolSearchError {
  constructor(message: string, options?: { cause?: unknown }) {
    super("TOOL_FAILED", message, options);
  }
}

/** Code-mode failures: one class, the code says which (syntax, threw, timeout, limit). */
export type CodeErrorCode = "CODE_SYNTAX" | "CODE_THREW" | "CODE_TIMEOUT" | "CODE_LIMIT";
export class CodeError extends ToolSearchError {
  constructor(code: CodeErrorCode, message: string) {
    super(code, message);
  }
}

export class SandboxUnavailableError extends ToolSearchError {
  constructor(message: string, options?: { cause?: unknown }) {
    super("SANDBOX_UNAVAILABLE", message, options);
  }
}

export class PoolSaturatedError extends ToolSearchError {
  constructor(message: string) {
    super("POOL_SATURATED", message);
  }
}

export class EngineClosedError extends ToolSearchError {
  constructor() {
    super("ENGINE_CLOSED", "The tool-search engine is closed; create a new one.");
  }
}

/** The model provider failed or answered something that is not a model answer (runAgentTurn). */
export class ProviderFailedError extends ToolSearchError {
  constructor(message: string, options?: { cause?: unknown }) {
    super("PROVIDER_FAILED", message, options);
  }
}

/** Turns anything thrown into the `{ code, message }` a model or caller can read. */
export function toErrorPayload(error: unknown, fallback: ErrorCode = "TOOL_FAILED"): ErrorPayload {
  if (error instanceof ToolSearchError) return error.toJSON();
  const message = error instanceof Error ? error.message : String(error);
  return { code: fallback, message };
}
