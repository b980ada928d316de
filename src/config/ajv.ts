import { Ajv, type ErrorObject } from "ajv";
import { linearRegExpEngine } from "../validation/linear-regexp.js";
import { useLinearUniqueItems } from "../validation/unique-items.js";

/** ajv for the engine's own option schemas (not tool schemas): defaults applied, every error reported. */
export function createOptionsAjv(): Ajv {
  // strictRequired is off: `oneOf: [{ required: [a] }, { required: [b] }]` names properties declared one level up.
  return new Ajv({ allErrors: true, useDefaults: true, strict: true, strictRequired: false });
}

/**
 * ajv for tool input schemas written by others: lenient about unknown keywords and formats, and
 * bounded in time on whatever arguments a model sends: patterns run on RE2 (linear time) and
 * `uniqueItems` is linear. `untrusted` (client and MCP schemas) also turns off the inlining of
 * `$ref`s, so that a schema of nested references compiles in time linear in its size instead of
 * doubling per level.
 */
export function createToolAjv(options: { untrusted?: boolean } = {}): Ajv {
  const ajv = new Ajv({
    strict: false,
    allErrors: true,
    addUsedSchema: false,
    validateFormats: false,
    code: { regExp: linearRegExpEngine },
    ...(options.untrusted ? { inlineRefs: false } : {}),
  });
  return useLinearUniqueItems(ajv);
}

/** `path: must be …; got <value>` lines, one per error, naming what is allowed where ajv knows it. */
export function describeAjvErrors(root: string, errors: readonly ErrorObject[] | null | undefined, data: unknown): string {
  if (!errors || errors.length === 0) return `${root}: invalid`;
  const lines = dedupe(errors.filter((e) => e.keyword !== "if" && e.keyword !== "anyOf" && e.keyword !== "oneOf")).map((e) => describeOne(root, e, data));
  return (lines.length > 0 ? lines : errors.map((e) => describeOne(root, e, data))).slice(0, 5).join("; ");
}

function describeOne(root: string, error: ErrorObject, data: unknown): string {
  const pointer = error.instancePath.split("/").slice(1).map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"));
  const path = [root, ...pointer].filter(Boolean).join(".");
  const value = valueAt(data, pointer);
  const params = error.params as Record<string, unknown>;
  if (error.keyword === "additionalProperties") return `${path}: unknown option "${String(params.additionalProperty)}"`;
  if (error.keyword === "enum") return `${path}: must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ")}; got ${JSON.stringify(value)}`;
  return `${path}: ${error.message ?? "is invalid"}; got ${JSON.stringify(value) ?? "undefined"}`;
}

function valueAt(data: unknown, pointer: readonly string[]): unknown {
  let current: unknown = data;
  for (const key of pointer) {
    if (typeof current !== "object" || current === null) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

function dedupe(errors: ErrorObject[]): ErrorObject[] {
  const seen = new Set<string>();
  return errors.filter((e) => {
    const key = `${e.instancePath}|${e.keyword}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
