/**
 * Checks one tool definition at registration, so a bad tool is rejected with a message that
 * names it instead of failing at call time.
 */
import type { Ajv, ErrorObject, ValidateFunction } from "ajv";
import { ConfigInvalidError, errorMessage } from "../errors.js";
import { checkAnnotations } from "./annotations.js";
import { requireGenerated } from "../validation/ajv.js";
import { schemaOverLimits, unsupportedPattern, type SchemaLimits } from "../validation/schema-limits.js";
import { schemaKey, type ValidatorCache } from "../validation/validator-cache.js";
import type { JsonSchema, ToolDefinition } from "./types.js";

/**
 * Names are opaque inside the engine (ids are map keys), and real catalogs have names with
 * spaces ("requestFirst Aid Assistance" in Seal-Tools), so only what would corrupt prompts or
 * logs is refused: control characters, surrounding space, and over-long names. Providers'
 * function-name rules are met where names are shown directly (surfaces/provider-tool.ts).
 */
const NAME_PATTERN = /^(?! )[^\u0000-\u001f\u007f-\u009f]{1,128}(?<! )$/u;

export function checkDefinitionShape(def: unknown, where: string): asserts def is ToolDefinition {
  if (typeof def !== "object" || def === null) throw new ConfigInvalidError(`${where}: a tool definition must be an object, got ${typeName(def)}`);
  const d = def as Record<string, unknown>;
  if (typeof d.name !== "string" || !NAME_PATTERN.test(d.name)) {
    throw new ConfigInvalidError(
      `${where}: tool name must be 1-128 characters without control characters or surrounding spaces; got ${JSON.stringify(d.name)}`,
    );
  }
  const label = `${where}: tool "${d.name}"`;
  if (typeof d.description !== "string") throw new ConfigInvalidError(`${label}: description must be a string, got ${typeName(d.description)}`);
  if (typeof d.execute !== "function") throw new ConfigInvalidError(`${label}: execute must be a function, got ${typeName(d.execute)}`);
  if (!isPlainObject(d.inputSchema)) throw new ConfigInvalidError(`${label}: inputSchema must be a JSON Schema object, got ${typeName(d.inputSchema)}`);
  if (d.outputSchema !== undefined && !isPlainObject(d.outputSchema)) {
    throw new ConfigInvalidError(`${label}: outputSchema must be a JSON Schema object when given, got ${typeName(d.outputSchema)}`);
  }
  if (d.ownerOnly !== undefined && typeof d.ownerOnly !== "boolean") throw new ConfigInvalidError(`${label}: ownerOnly must be a boolean`);
  if (d.required !== undefined && typeof d.required !== "boolean") throw new ConfigInvalidError(`${label}: required must be a boolean`);
  checkAnnotations(d.annotations, label);
}

/**
 * The schema as ajv should see it. `$schema` is dropped so that tools declaring draft-07 or
 * 2020-12 (common in MCP servers) are all checked by the one draft ajv runs; the tool's own
 * schema object is kept untouched for describe and direct exposure.
 */
function forAjv(schema: JsonSchema): JsonSchema {
  if (!("$schema" in schema)) return schema;
  const { $schema: _ignored, ...rest } = schema;
  return rest;
}

/**
 * Registration check: the input schema must be a valid JSON Schema whose patterns the
 * linear-time regex engine takes; a schema from an untrusted source (`limits` given) must also
 * fit the shape caps, checked first so nothing big is walked twice. Compiling a schema (ajv
 * generates and compiles code for it) costs many times these checks, and compiling a catalog of
 * thousands up front would hold the thread at startup, so compilation waits for the first call
 * (see lazyValidator) and is then cached.
 */
export function checkInputSchema(id: string, schema: JsonSchema, limits?: SchemaLimits): void {
  const problem = inputSchemaProblem(schema, limits);
  if (problem) throw new ConfigInvalidError(`Tool "${id}" has ${PROBLEM_WORDS[problem.kind]}: ${problem.detail}`);
}

export interface SchemaProblem {
  kind: "limits" | "invalid" | "pattern";
  detail: string;
}

const PROBLEM_WORDS: Record<SchemaProblem["kind"], string> = {
  limits: "an inputSchema over the limits for untrusted schemas",
  invalid: "an invalid inputSchema",
  pattern: "an inputSchema with a pattern the linear-time regex engine cannot run",
};

/**
 * What is wrong with an input schema, or undefined: caps first (when given), then JSON Schema
 * (draft-07's meta-schema, precompiled: what the tool ajv's validateSchema checks, without
 * loading ajv), then patterns.
 */
export function inputSchemaProblem(schema: JsonSchema, limits?: SchemaLimits): SchemaProblem | undefined {
  const over = limits ? schemaOverLimits(schema, limits) : undefined;
  if (over) return { kind: "limits", detail: over };
  const draft07 = (metaValidator ??= requireGenerated<{ validate: ValidateFunction }>("draft07").validate);
  if (!draft07(forAjv(schema))) return { kind: "invalid", detail: errorsText(draft07.errors) };
  const pattern = unsupportedPattern(schema);
  return pattern ? { kind: "pattern", detail: pattern } : undefined;
}

let metaValidator: ValidateFunction | undefined;

/** ajv's errorsText, as `ajv.validateSchema` callers read it. */
function errorsText(errors: readonly ErrorObject[] | null | undefined): string {
  return (errors ?? []).map((e) => `data${e.instancePath} ${e.message ?? ""}`).join(", ") || "No errors";
}

/**
 * A validator compiled once, on first use (the first call, or the first describe that shows it);
 * a schema ajv cannot compile fails that use with a clear message. `ajv` is asked for then too:
 * a catalog that is never called never loads ajv.
 */
export function lazyValidator(ajv: () => Ajv, id: string, schema: JsonSchema): () => ValidateFunction {
  let compiled: ValidateFunction | undefined;
  return () => (compiled ??= compileValidator(ajv(), id, schema));
}

/** A tool's validator compiled now; a schema ajv cannot compile is CONFIG_INVALID naming the tool. */
export function compileValidator(ajv: Ajv, id: string, schema: JsonSchema): ValidateFunction {
  try {
    return ajv.compile(forAjv(schema));
  } catch (error) {
    throw compileError(id, error);
  }
}

/**
 * For untrusted schemas: the validator lives in the engine's bounded cache, not in the entry,
 * so runs with distinct client schemas do not pile up compiled code; the key is hashed once.
 */
export function cachedValidator(cache: ValidatorCache, id: string, schema: JsonSchema): () => ValidateFunction {
  let key: string | undefined;
  return () => {
    key ??= schemaKey(schema);
    try {
      return cache.validator(forAjv(schema), key);
    } catch (error) {
      throw compileError(id, error);
    }
  };
}

function compileError(id: string, error: unknown): ConfigInvalidError {
  return new ConfigInvalidError(`Tool "${id}" has an inputSchema that cannot be compiled: ${errorMessage(error)}`, { cause: error });
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function typeName(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}
