/**
 * A `tools/call` result as the engine returns it: `isError: true` is a tool failure the model
 * can read (TOOL_FAILED, the server's text as the message); otherwise the structured content
 * when the server gave one, else the text items joined, else the content array as sent.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { ToolFailedError } from "../errors.js";
import { stripControl, truncate } from "../text/prompt-text.js";

/** The server's error text enters a model-facing message; it is bounded like a description. */
const MAX_ERROR_CHARS = 4_000;

type ContentItem = CallToolResult["content"][number];

export function interpretCallResult(result: CallToolResult, label: string): unknown {
  const content: ContentItem[] = Array.isArray(result.content) ? result.content : [];
  if (result.isError === true) {
    const text = joinText(content);
    const message = text.trim() !== "" ? truncate(stripControl(text).trim(), MAX_ERROR_CHARS) : `${label} reported an error without text.`;
    throw new ToolFailedError(message);
  }
  if (result.structuredContent !== undefined && result.structuredContent !== null) return result.structuredContent;
  if (content.every(isText)) return joinText(content);
  return content;
}

function isText(item: ContentItem): item is Extract<ContentItem, { type: "text" }> {
  return item.type === "text" && typeof (item as { text?: unknown }).text === "string";
}

function joinText(content: readonly ContentItem[]): string {
  return content
    .filter(isText)
    .map((item) => item.text)
    .join("\n");
}
