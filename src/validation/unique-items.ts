/**
 * `uniqueItems` in linear time. ajv's own keyword compares every pair of items (deep equality),
 * so 20,000 objects cost seconds on the shared event loop; here each item is written once in a
 * canonical form (object keys sorted) and looked up in a Set, which is linear in the size of
 * the array (argument size and depth are capped before validation: see args-limits.ts).
 */
import type { Ajv, SchemaValidateFunction } from "ajv";

/** Replaces ajv's quadratic `uniqueItems` with the linear one below. */
export function useLinearUniqueItems(ajv: Ajv): Ajv {
  ajv.removeKeyword("uniqueItems");
  ajv.addKeyword({ keyword: "uniqueItems", type: "array", schemaType: "boolean", errors: true, validate: validateUniqueItems });
  return ajv;
}

const validateUniqueItems: SchemaValidateFunction = (unique: unknown, data: unknown): boolean => {
  validateUniqueItems.errors = [];
  if (unique !== true || !Array.isArray(data)) return true;
  const duplicate = firstDuplicate(data);
  if (duplicate === undefined) return true;
  const [i, j] = duplicate;
  validateUniqueItems.errors = [{ keyword: "uniqueItems", message: `must NOT have duplicate items (items ## ${j} and ${i} are identical)`, params: { i, j } }];
  return false;
};

/** The first pair [earlier, later] of equal items, or undefined. */
export function firstDuplicate(items: readonly unknown[]): [number, number] | undefined {
  const seen = new Map<string, number>();
  for (let index = 0; index < items.length; index++) {
    const key = canonical(items[index]);
    const earlier = seen.get(key);
    if (earlier !== undefined) return [earlier, index];
    seen.set(key, index);
  }
  return undefined;
}

/** JSON with object keys sorted, so that equal values (in JSON Schema's sense) give equal text. */
export function canonical(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  const object = value as Record<string, unknown>;
  return `{${Object.keys(object)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${canonical(object[key])}`)
    .join(",")}}`;
}
