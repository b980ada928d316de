/**
 * Text that enters a prompt: tool descriptions may be untrusted (MCP servers), so they are
 * stripped of control characters and bounded before a model sees them. And text that enters a
 * log line or a span name: escaped (`escapeControl`), so a caller cannot forge a line.
 */

// C0/C1 controls except tab/newline, plus bidi overrides and zero-width characters that can hide text.
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/g;

export function stripControl(text: string): string {
  return text.replace(CONTROL, "");
}

// Every character that can break or disguise a line of text: all C0/C1 controls (tab, newline
// and carriage return included), bidi overrides and zero-width characters, line separators.
const LINE_BREAKING = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]/g;
const SHORT_ESCAPES: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" };

/**
 * Text from a caller (a tool name, a header) made safe to put in a log line or a span name:
 * each control character is written as its escape (`\n`, `\u001b`), so it can neither end the
 * line and forge the next one, nor move the cursor, nor hide text, and it still shows.
 */
export function escapeControl(text: string): string {
  return text.replace(LINE_BREAKING, (c) => SHORT_ESCAPES[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** Cuts at `max` characters, on a word boundary where one is near, with an ellipsis. */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max - 1);
  const space = cut.lastIndexOf(" ");
  return `${space > max * 0.6 ? cut.slice(0, space) : cut}…`;
}

/** The first sentence or line, one line, control-free, at most `max` characters. */
export function oneLine(text: string, max: number): string {
  const flat = stripControl(text).replace(/\s+/g, " ").trim();
  const sentence = /^(.+?[.!?])(\s|$)/.exec(flat)?.[1] ?? flat;
  return truncate(sentence.length >= 20 ? sentence : flat, max);
}

/** Bounded multi-line text (full descriptions in describe). */
export function bounded(text: string, max: number): string {
  return truncate(stripControl(text).trim(), max);
}

/**
 * At most `max` characters, with a marker saying how many were cut: for ids and queries in
 * logs, telemetry and error messages, which must never carry a caller's 400,000 characters.
 */
export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}…[+${text.length - max} chars]`;
}
