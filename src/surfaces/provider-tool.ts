/** Tools in the OpenAI Chat Completions `tools` format, and the function names providers accept. */
import type { CatalogEntry, JsonSchema } from "../catalog/types.js";

export interface ProviderTool {
  type: "function";
  function: { name: string; description: string; parameters: JsonSchema };
}

/** Providers accept `^[a-zA-Z0-9_-]{1,64}$`; tool ids contain ":" so names are derived. */
const MAX_FUNCTION_NAME = 64;

function sanitize(name: string): string {
  return name.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, MAX_FUNCTION_NAME) || "tool";
}

/**
 * Function names for tools shown directly: the bare tool name where it is unique, else the
 * toolset-qualified name, else a numbered one. Stable for a given list order.
 */
export function assignFunctionNames(entries: Iterable<CatalogEntry>, reserved: ReadonlySet<string> = new Set()): Map<string, CatalogEntry> {
  const list = [...entries];
  const nameCounts = new Map<string, number>();
  for (const entry of list) nameCounts.set(sanitize(entry.name), (nameCounts.get(sanitize(entry.name)) ?? 0) + 1);
  const byFunction = new Map<string, CatalogEntry>();
  for (const entry of list) {
    const bare = sanitize(entry.name);
    let candidate = nameCounts.get(bare) === 1 && !reserved.has(bare) ? bare : sanitize(`${entry.toolset}__${entry.name}`);
    for (let n = 2; byFunction.has(candidate) || reserved.has(candidate); n += 1) {
      const suffix = `_${n}`;
      candidate = `${candidate.slice(0, MAX_FUNCTION_NAME - suffix.length)}${suffix}`;
    }
    byFunction.set(candidate, entry);
  }
  return byFunction;
}

export function toProviderTool(functionName: string, entry: CatalogEntry): ProviderTool {
  return {
    type: "function",
    function: { name: functionName, description: entry.definition.description, parameters: entry.definition.inputSchema },
  };
}

export function controlTool(name: string, description: string, parameters: JsonSchema): ProviderTool {
  return { type: "function", function: { name, description, parameters } };
}
