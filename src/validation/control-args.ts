/**
 * Strict keys for the control tools' arguments (tool_search, tool_describe, tool_call) and the
 * bridge's options: a key the tool does not take is refused with INVALID_ARGS naming it and,
 * where one is close, the key that was meant. A model that sends `{ id, arguments }` must learn
 * that its arguments were not used, not see the tool run with `{}`.
 */
import { InvalidArgsError } from "../errors.js";
import { closestWord } from "./closest-word.js";

/** Keys a model commonly sends for another one; said in the error even when the spelling is far. */
const KNOWN_MIXUPS: Readonly<Record<string, string>> = {
  arguments: "args",
  input: "args",
  parameters: "args",
  params: "args",
  tool: "id",
  name: "id",
  tool_id: "id",
  toolId: "id",
  q: "query",
  text: "query",
  k: "limit",
  top_k: "limit",
  topK: "limit",
  max_results: "limit",
};

/** Throws INVALID_ARGS for the first key of `args` that `where` does not take. */
export function refuseUnknownKeys(where: string, args: Readonly<Record<string, unknown>>, allowed: readonly string[]): void {
  for (const key of Object.keys(args)) {
    if (allowed.includes(key)) continue;
    const meant = KNOWN_MIXUPS[key] ?? closestWord(key, allowed);
    const hint = meant !== undefined && allowed.includes(meant) ? ` Use "${meant}" instead.` : "";
    throw new InvalidArgsError(`${where} does not take "${shownKey(key)}" (it takes ${allowed.map((k) => `"${k}"`).join(", ")}).${hint}`);
  }
}

function shownKey(key: string): string {
  return key.length > 60 ? `${key.slice(0, 60)}…` : key;
}
