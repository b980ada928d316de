/** What a model does with a schema it was given: fill every required field with a plausible value. */
export function sampleArgs(schema: unknown): Record<string, unknown> {
  if (typeof schema !== "object" || schema === null) return {};
  const s = schema as { required?: unknown; properties?: Record<string, unknown> };
  const required = Array.isArray(s.required) ? s.required.filter((r): r is string => typeof r === "string") : [];
  return Object.fromEntries(required.map((field) => [field, sampleValue(field, s.properties?.[field])]));
}

function sampleValue(field: string, property: unknown): unknown {
  const p = (typeof property === "object" && property !== null ? property : {}) as { type?: unknown; enum?: unknown[]; items?: unknown };
  if (Array.isArray(p.enum) && p.enum.length > 0) return p.enum[0];
  switch (p.type) {
    case "integer":
    case "number":
      return 1;
    case "boolean":
      return true;
    case "array":
      return [];
    case "object":
      return {};
    default:
      return `sample-${field}`;
  }
}
