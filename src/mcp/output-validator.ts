/**
 * The JSON Schema validator handed to the SDK client for tools' output schemas.
 *
 * The SDK's default compiles every listed tool's outputSchema while listing, so one schema it
 * cannot compile (a bad `$ref`, a keyword from another draft, a duplicate `$id`) fails the
 * whole `tools/list`, and an untrusted server could keep a start from succeeding. This one
 * compiles lazily (on the first call of that tool), never throws: a schema that cannot be
 * compiled, or that is over the size bound, is not enforced, and drops each compiled schema
 * from ajv's cache so re-lists on `list_changed` do not grow it.
 */
import type { ValidateFunction } from "ajv";
import type { jsonSchemaValidator, JsonSchemaType, JsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/types.js";
import { createToolAjv } from "../config/ajv.js";

export function lenientOutputValidator(maxSchemaBytes: number): jsonSchemaValidator {
  const ajv = createToolAjv();
  return {
    getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
      let compiled: ValidateFunction | null | undefined;
      const compile = (): ValidateFunction | null => {
        try {
          if (Buffer.byteLength(JSON.stringify(schema)) > maxSchemaBytes) return null;
          const { $schema: _ignored, ...rest } = schema as Record<string, unknown>;
          const validate = ajv.compile(rest);
          ajv.removeSchema(rest);
          return validate;
        } catch {
          return null;
        }
      };
      return (input: unknown) => {
        if (compiled === undefined) compiled = compile();
        if (compiled === null || compiled(input)) return { valid: true, data: input as T, errorMessage: undefined };
        return { valid: false, data: undefined, errorMessage: ajv.errorsText(compiled.errors) };
      };
    },
  };
}
