/**
 * A reason fit for a log line: a planted file's names (a snapshot, the learned journal) can reach
 * the messages reported about it, so control characters are escaped (no forged lines) and the
 * text is clipped.
 */
export function printable(text: string): string {
  const escaped = text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
  return escaped.length > 500 ? `${escaped.slice(0, 500)}…` : escaped;
}
