/**
 * A size and depth cap on tool-call arguments, checked before validation: schema keywords cost
 * time in the size of the data (and recursion in its depth), so the data is bounded first.
 * The walk is linear and stops as soon as a cap is passed.
 */
export interface ArgsLimits {
  /** Approximate bytes of the arguments as JSON (strings by length, plus punctuation). */
  maxBytes: number;
  /** Nesting depth of objects and arrays. */
  maxDepth: number;
}

export const DEFAULT_ARGS_LIMITS: Readonly<ArgsLimits> = Object.freeze({ maxBytes: 524_288, maxDepth: 64 });

/** Why the arguments are over a cap, in words, or undefined when they fit. */
export function argsOverLimits(args: unknown, limits: ArgsLimits = DEFAULT_ARGS_LIMITS): string | undefined {
  let bytes = 0;
  const stack: Array<{ value: unknown; depth: number }> = [{ value: args, depth: 0 }];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const { value, depth } = item;
    bytes += sizeOf(value);
    if (bytes > limits.maxBytes) return `they are over the ${limits.maxBytes}-byte limit`;
    if (typeof value !== "object" || value === null) continue;
    if (depth >= limits.maxDepth) return `they nest deeper than ${limits.maxDepth} levels`;
    if (Array.isArray(value)) {
      bytes += value.length; // the commas
      for (const item of value) stack.push({ value: item, depth: depth + 1 });
      continue;
    }
    for (const key in value) {
      // Keys are counted as they are met, so one object of a million keys stops early too.
      bytes += key.length + 4;
      if (bytes > limits.maxBytes) return `they are over the ${limits.maxBytes}-byte limit`;
      stack.push({ value: (value as Record<string, unknown>)[key], depth: depth + 1 });
    }
  }
  return undefined;
}

/** About the value's JSON length, its members apart (strings in UTF-16 units, escapes not counted). */
function sizeOf(value: unknown): number {
  if (typeof value === "string") return value.length + 2;
  if (typeof value === "number") return String(value).length;
  if (typeof value === "boolean") return 5;
  return 2; // null, and the brackets of an object or array
}
