/**
 * Shape caps for JSON Schemas from untrusted sources (a run's client tools, MCP servers),
 * checked before anything compiles them. ajv's compile time grows with the number of schema
 * nodes (a 6,000-property schema once held the event loop for tens of seconds), so the caps
 * keep one compile short: bytes, schema objects, nesting depth, patterns. The stalls they
 * leave are measured by `npm run build && node dist/bench/stall/main.js`.
 * The walk itself is linear and stops at the first cap exceeded.
 */
import { linearRegExp, MAX_PATTERN_CHARS } from "./linear-regexp.js";
import { errorMessage } from "../errors.js";

export interface SchemaLimits {
  /** Bytes of the schema's JSON. */
  maxBytes: number;
  /** JSON objects anywhere in the schema (each property's schema is one). */
  maxNodes: number;
  /** Nesting depth of objects and arrays. */
  maxDepth: number;
  /** `pattern` values plus `patternProperties` keys. */
  maxPatterns: number;
}

export const DEFAULT_SCHEMA_LIMITS: Readonly<SchemaLimits> = Object.freeze({
  maxBytes: 65_536,
  maxNodes: 400,
  maxDepth: 24,
  maxPatterns: 64,
});

/** The first cap a schema exceeds, in words, or undefined when it fits. */
export function schemaOverLimits(schema: unknown, limits: SchemaLimits = DEFAULT_SCHEMA_LIMITS): string | undefined {
  const shape = walkShape(schema, limits);
  if (shape) return shape;
  let bytes: number;
  try {
    // The walk above bounded the node count, so this stringify is cheap unless strings are huge;
    // it is linear either way and the byte cap catches huge strings.
    bytes = Buffer.byteLength(JSON.stringify(schema) ?? "");
  } catch {
    return "it cannot be serialised as JSON";
  }
  return bytes > limits.maxBytes ? `it is ${bytes} bytes of JSON, over the ${limits.maxBytes}-byte limit` : undefined;
}

function walkShape(schema: unknown, limits: SchemaLimits): string | undefined {
  let nodes = 0;
  let patterns = 0;
  const stack: Array<{ value: unknown; depth: number }> = [{ value: schema, depth: 1 }];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const { value, depth } = item;
    if (typeof value !== "object" || value === null) continue;
    if (depth > limits.maxDepth) return `it nests deeper than ${limits.maxDepth} levels`;
    if (Array.isArray(value)) {
      for (const item of value) stack.push({ value: item, depth: depth + 1 });
      continue;
    }
    nodes += 1;
    if (nodes > limits.maxNodes) return `it has more than ${limits.maxNodes} schema objects`;
    const object = value as Record<string, unknown>;
    patterns += patternCount(object);
    if (patterns > limits.maxPatterns) return `it has more than ${limits.maxPatterns} patterns`;
    const long = longPattern(object);
    if (long) return long;
    for (const key in object) if (!DATA_KEYWORDS.has(key)) stack.push({ value: object[key], depth: depth + 1 });
  }
  return undefined;
}

/** Keywords whose values are data, not schemas: a "pattern" key inside them is not a regex. */
const DATA_KEYWORDS = new Set(["const", "enum", "default", "examples"]);

/**
 * Every `pattern` and `patternProperties` key compiled on the linear-time engine; the first one
 * it cannot take, in words, or undefined. Run at registration, so a bad pattern is a clear
 * configuration error and never reaches a backtracking engine.
 */
export function unsupportedPattern(schema: unknown): string | undefined {
  const stack: unknown[] = [schema];
  while (stack.length > 0) {
    const value = stack.pop();
    if (typeof value !== "object" || value === null) continue;
    if (Array.isArray(value)) {
      stack.push(...value);
      continue;
    }
    const object = value as Record<string, unknown>;
    const patterns = [
      ...(typeof object.pattern === "string" ? [object.pattern] : []),
      ...(typeof object.patternProperties === "object" && object.patternProperties !== null ? Object.keys(object.patternProperties) : []),
    ];
    for (const pattern of patterns) {
      try {
        linearRegExp(pattern);
      } catch (error) {
        return errorMessage(error);
      }
    }
    for (const key in object) if (!DATA_KEYWORDS.has(key)) stack.push(object[key]);
  }
  return undefined;
}

function patternCount(object: Record<string, unknown>): number {
  const own = typeof object.pattern === "string" ? 1 : 0;
  const properties = object.patternProperties;
  return own + (typeof properties === "object" && properties !== null ? Object.keys(properties).length : 0);
}

function longPattern(object: Record<string, unknown>): string | undefined {
  if (typeof object.pattern === "string" && object.pattern.length > MAX_PATTERN_CHARS) {
    return `a pattern is ${object.pattern.length} characters, over the ${MAX_PATTERN_CHARS}-character limit`;
  }
  return undefined;
}
