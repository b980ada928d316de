/**
 * The JSON Schema validator handed to the SDK client for tools' output schemas.
 *
 * The SDK's default compiles every listed tool's outputSchema while listing, so one schema it
 * cannot compile (a bad `$ref`, a keyword from another draft, a duplicate `$id`) fails the
 * whole `tools/list`, and an untrusted server could keep a start from succeeding. This one
 * compiles lazily (on the first call of that tool), never throws, and compiles into a bounded
 * cache (re-lists on `list_changed` do not grow memory). A schema that cannot be compiled, that
 * is over the untrusted-schema caps, or whose patterns the linear-time engine cannot take, is
 * not enforced, and that is published on "toolsearch:error" (origin "output_schema").
 */
import type { ValidateFunction } from "ajv";
import type { jsonSchemaValidator, JsonSchemaType, JsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/types.js";
import { createToolAjv } from "../validation/ajv.js";
import { ConfigInvalidError, errorMessage } from "../errors.js";
import { publishFailure } from "../error-channel.js";
import { DEFAULT_SCHEMA_LIMITS, schemaOverLimits } from "../validation/schema-limits.js";
import { ValidatorCache } from "../validation/validator-cache.js";

export function lenientOutputValidator(maxSchemaBytes: number, server: string): jsonSchemaValidator {
  const cache = new ValidatorCache({ maxEntries: 128 });
  const limits = { ...DEFAULT_SCHEMA_LIMITS, maxBytes: maxSchemaBytes };
  // Only formats error lists; it compiles nothing.
  const texts = createToolAjv();
  return {
    getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
      let compiled: ValidateFunction | null | undefined;
      const compile = (): ValidateFunction | null => {
        try {
          const over = schemaOverLimits(schema, limits);
          if (over !== undefined) throw new ConfigInvalidError(over);
          const { $schema: _ignored, ...rest } = schema as Record<string, unknown>;
          return cache.validator(rest);
        } catch (error) {
          publishFailure(
            "output_schema",
            new ConfigInvalidError(`An output schema of MCP server "${server}" is not enforced: ${errorMessage(error)}`),
            { server },
            "CONFIG_INVALID",
          );
          return null;
        }
      };
      return (input: unknown) => {
        if (compiled === undefined) compiled = compile();
        if (compiled === null || compiled(input)) return { valid: true, data: input as T, errorMessage: undefined };
        return { valid: false, data: undefined, errorMessage: texts.errorsText(compiled.errors) };
      };
    },
  };
}
