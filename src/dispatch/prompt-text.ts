/**
 * Text that enters a prompt: tool descriptions may be untrusted (MCP servers), so they are
 * stripped of control characters and bounded before a model sees them.
 */

// C0/C1 controls except tab/newline, plus bidi overrides and zero-width characters that can hide text.
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/g;

export function stripControl(text: string): string {
  return text.replace(CONTROL, "");
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
