/**
 * A run's tools in each provider format. The surfaces build one list in the OpenAI Chat
 * Completions shape (`run.tools`); the other formats are views of it, built once per tool list
 * (direct-mode declarations are shared by runs, so is their conversion).
 *
 * Each format has its own rule for tool names. The surfaces already derive names that every
 * format here accepts, but a name a format forbids is never sent as is: it is mapped to an
 * accepted, unique name once, and the call is mapped back (`canonicalName`).
 */
import type { JsonSchema } from "../catalog/types.js";
import type { ProviderTool } from "./provider-tool.js";

export const TOOL_FORMATS = ["openai-chat", "openai-responses", "anthropic"] as const;
export type ToolFormat = (typeof TOOL_FORMATS)[number];

/** OpenAI Chat Completions: `tools: [{ type: "function", function: { name, description, parameters } }]`. */
export type OpenAIChatTool = ProviderTool;

/** OpenAI Responses: flat function tools. */
export interface OpenAIResponsesTool {
  type: "function";
  name: string;
  description: string;
  parameters: JsonSchema;
  /** false: catalog schemas are not written for strict mode (every property required, no extra keys). */
  strict: boolean;
}

/** Anthropic Messages: `tools: [{ name, description, input_schema }]`. */
export interface AnthropicTool {
  name: string;
  description: string;
  input_schema: JsonSchema;
}

export interface FormatTools {
  "openai-chat": OpenAIChatTool[];
  "openai-responses": OpenAIResponsesTool[];
  anthropic: AnthropicTool[];
}

/** Tool names each format accepts (the strictest documented rule of each API). */
export const FORMAT_NAME_RULES: Readonly<Record<ToolFormat, RegExp>> = Object.freeze({
  "openai-chat": /^[a-zA-Z0-9_-]{1,64}$/,
  "openai-responses": /^[a-zA-Z0-9_-]{1,64}$/,
  anthropic: /^[a-zA-Z0-9_-]{1,64}$/,
});
const MAX_NAME = 64;

export interface FormattedTools<F extends ToolFormat> {
  tools: FormatTools[F];
  /** Format name → the surface's name, for names that had to change (usually empty). */
  renamed: ReadonlyMap<string, string>;
}

const cache = new WeakMap<readonly ProviderTool[], Map<ToolFormat, FormattedTools<ToolFormat>>>();

export function isToolFormat(value: unknown): value is ToolFormat {
  return typeof value === "string" && (TOOL_FORMATS as readonly string[]).includes(value);
}

/** The tools in `format`, cached per tool list; `renamed` maps changed names back. */
export function formatTools<F extends ToolFormat>(tools: readonly ProviderTool[], format: F): FormattedTools<F> {
  let byFormat = cache.get(tools);
  if (!byFormat) {
    byFormat = new Map();
    cache.set(tools, byFormat);
  }
  let formatted = byFormat.get(format);
  if (!formatted) {
    formatted = convert(tools, format);
    byFormat.set(format, formatted);
  }
  return formatted as FormattedTools<F>;
}

function convert(tools: readonly ProviderTool[], format: ToolFormat): FormattedTools<ToolFormat> {
  const names = mapNames(
    tools.map((t) => t.function.name),
    FORMAT_NAME_RULES[format],
  );
  const renamed = new Map<string, string>();
  tools.forEach((t, i) => {
    if (names[i] !== t.function.name) renamed.set(names[i]!, t.function.name);
  });
  if (format === "openai-chat") {
    const list = renamed.size === 0 ? [...tools] : tools.map((t, i) => ({ type: "function" as const, function: { ...t.function, name: names[i]! } }));
    return { tools: list, renamed };
  }
  if (format === "openai-responses") {
    return {
      tools: tools.map((t, i) => ({
        type: "function" as const,
        name: names[i]!,
        description: t.function.description,
        parameters: t.function.parameters,
        strict: false,
      })),
      renamed,
    };
  }
  return { tools: tools.map((t, i) => ({ name: names[i]!, description: t.function.description, input_schema: objectSchema(t.function.parameters) })), renamed };
}

/** Anthropic needs `input_schema.type: "object"`; a schema without a type says nothing against it. */
function objectSchema(schema: JsonSchema): JsonSchema {
  return (schema as { type?: unknown }).type === undefined ? { type: "object", ...schema } : schema;
}

/**
 * Each name the rule accepts stays; each other name becomes an accepted one (forbidden
 * characters as "_", clipped, numbered when taken) that no other tool in the list uses.
 */
export function mapNames(names: readonly string[], rule: RegExp): string[] {
  const taken = new Set(names.filter((n) => rule.test(n)));
  return names.map((name) => {
    if (rule.test(name)) return name;
    const base = name.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, MAX_NAME) || "tool";
    let candidate = base;
    for (let n = 2; taken.has(candidate) || !rule.test(candidate); n += 1) {
      const suffix = `_${n}`;
      candidate = `${base.slice(0, MAX_NAME - suffix.length)}${suffix}`;
    }
    taken.add(candidate);
    return candidate;
  });
}
