/**
 * Seal-Tools as real tool definitions (for engine-level tests and benchmarks): parameter
 * types mapped to JSON Schema (`str` → string, `int` → integer, …), duplicates dropped.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import type { ToolDefinition } from "../../src/index.js";

const TYPES: Record<string, string> = { str: "string", int: "integer", float: "number", bool: "boolean", list: "array", dict: "object" };

interface SealTool {
  api_name: string;
  api_description?: string;
  parameters?: Record<string, { type?: string; description?: string }>;
  required?: string[];
}

export function sealToolDefinitions(dataDir: string): ToolDefinition[] {
  const seen = new Set<string>();
  const defs: ToolDefinition[] = [];
  for (const line of readFileSync(path.join(dataDir, "seal-tools/tool.jsonl"), "utf8").split("\n")) {
    if (line.trim() === "") continue;
    const raw = JSON.parse(line) as SealTool;
    if (seen.has(raw.api_name)) continue;
    seen.add(raw.api_name);
    const properties = Object.fromEntries(
      Object.entries(raw.parameters ?? {}).map(([name, p]) => [name, { type: TYPES[p.type ?? "str"] ?? "string", description: p.description ?? "" }]),
    );
    const required = (raw.required ?? []).filter((r) => r in properties);
    defs.push({
      name: raw.api_name,
      description: raw.api_description ?? "",
      inputSchema: { type: "object", properties, ...(required.length > 0 ? { required } : {}) },
      execute: (args) => ({ tool: raw.api_name, args }),
    });
  }
  return defs;
}
