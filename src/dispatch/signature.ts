/** A bounded TypeScript-like parameter hint from an input schema: `(city: string, days?: integer)`. */
import type { JsonSchema } from "../catalog/types.js";
import { stripControl, truncate } from "../text/prompt-text.js";

const MAX_SIGNATURE_CHARS = 160;

export function signatureOf(schema: JsonSchema): string | undefined {
  const properties = schema.properties;
  if (typeof properties !== "object" || properties === null) return undefined;
  const required = new Set(Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === "string") : []);
  const params = Object.entries(properties as Record<string, unknown>).map(
    ([name, property]) => `${stripControl(name)}${required.has(name) ? "" : "?"}: ${typeOf(property)}`,
  );
  if (params.length === 0) return "()";
  return truncate(`(${params.join(", ")})`, MAX_SIGNATURE_CHARS);
}

function typeOf(property: unknown): string {
  if (typeof property !== "object" || property === null) return "unknown";
  const p = property as Record<string, unknown>;
  if (Array.isArray(p.enum))
    return (
      p.enum
        .slice(0, 4)
        .map((v) => JSON.stringify(v))
        .join(" | ") + (p.enum.length > 4 ? " | …" : "")
    );
  if (Array.isArray(p.type)) return p.type.join(" | ");
  if (p.type === "array") return `${typeOf(p.items)}[]`;
  if (typeof p.type === "string") return p.type;
  if (Array.isArray(p.anyOf ?? p.oneOf)) return "union";
  return "unknown";
}
