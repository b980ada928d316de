/** Registration checks of one tool definition: shape, input schema (caps, JSON Schema, patterns), lazy compilation. */
import { describe, expect, it } from "vitest";
import { Ajv } from "ajv";
import { checkDefinitionShape, checkInputSchema, inputSchemaProblem, lazyValidator } from "../../src/catalog/validate-definition.js";
import { DEFAULT_SCHEMA_LIMITS } from "../../src/validation/schema-limits.js";

const good = { name: "get_weather", description: "Weather.", inputSchema: { type: "object" }, execute: () => null };
/** "" when the definition passes; else the message of the CONFIG_INVALID it throws (any other error is rethrown). */
const shapeError = (def: unknown): string => {
  try {
    checkDefinitionShape(def, "plugin:wx");
    return "";
  } catch (error) {
    if ((error as { code?: unknown }).code !== "CONFIG_INVALID") throw error;
    return (error as Error).message;
  }
};

describe("checkDefinitionShape", () => {
  it("accepts a definition, names with spaces and non-ASCII included", () => {
    expect(shapeError(good)).toBe("");
    expect(shapeError({ ...good, name: "requestFirst Aid Assistance", ownerOnly: true, required: false, outputSchema: {} })).toBe("");
    expect(shapeError({ ...good, name: "météo" })).toBe("");
  });

  it("refuses each bad field with the place and the tool named", () => {
    expect(shapeError(null)).toBe("plugin:wx: a tool definition must be an object, got null");
    for (const name of ["", " lead", "trail ", "a\u0007b", "x".repeat(129), 5])
      expect(shapeError({ ...good, name })).toMatch(/^plugin:wx: tool name must be 1-128 characters/);
    expect(shapeError({ ...good, description: 1 })).toBe('plugin:wx: tool "get_weather": description must be a string, got number');
    expect(shapeError({ ...good, execute: "run" })).toBe('plugin:wx: tool "get_weather": execute must be a function, got string');
    expect(shapeError({ ...good, inputSchema: [] })).toBe('plugin:wx: tool "get_weather": inputSchema must be a JSON Schema object, got array');
    expect(shapeError({ ...good, outputSchema: null })).toMatch(/outputSchema must be a JSON Schema object when given, got null/);
    expect(shapeError({ ...good, ownerOnly: "yes" })).toMatch(/ownerOnly must be a boolean/);
    expect(shapeError({ ...good, required: 1 })).toMatch(/required must be a boolean/);
  });

  it("takes MCP-style annotations on any tool, and refuses a hint that is not a boolean or a title that is not a short string", () => {
    expect(
      shapeError({ ...good, annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true, title: "Weather" } }),
    ).toBe("");
    expect(shapeError({ ...good, annotations: [] })).toBe('plugin:wx: tool "get_weather": annotations must be an object when given');
    expect(shapeError({ ...good, annotations: { destructiveHint: "yes" } })).toBe(
      'plugin:wx: tool "get_weather": annotations.destructiveHint must be a boolean',
    );
    expect(shapeError({ ...good, annotations: { title: "t".repeat(201) } })).toMatch(/annotations\.title must be a string of at most 200 characters/);
  });
});

describe("input schemas", () => {
  // The checks themselves, with a plain ajv (the engine's adds a linear regexp engine and limits).
  const ajv = new Ajv({ strict: false, allErrors: true });

  it("caps first (untrusted only), then JSON Schema validity, then patterns the linear engine cannot run", () => {
    const deep = JSON.parse(`${'{"items":'.repeat(30)}{}${"}".repeat(30)}`) as Record<string, unknown>;
    expect(inputSchemaProblem(deep, DEFAULT_SCHEMA_LIMITS)).toMatchObject({ kind: "limits" });
    expect(inputSchemaProblem(deep)).toBeUndefined();
    expect(inputSchemaProblem({ type: "no-such-type" })).toMatchObject({ kind: "invalid" });
    expect(inputSchemaProblem({ type: "string", pattern: "(a)\\1" })).toMatchObject({ kind: "pattern" });
    expect(inputSchemaProblem({ $schema: "https://json-schema.org/draft/2020-12/schema", type: "object" })).toBeUndefined();
    expect(() => checkInputSchema("mcp:x:t", { type: "no-such-type" })).toThrow(/^Tool "mcp:x:t" has an invalid inputSchema: /);
  });

  it("compiles on first use, once, without $schema; a schema ajv cannot compile fails that use with CONFIG_INVALID", () => {
    const schema = { $schema: "http://json-schema.org/draft-07/schema#", type: "object", required: ["city"] };
    const validator = lazyValidator(() => ajv, "core:w", schema);
    const compiled = validator();
    expect(validator()).toBe(compiled);
    expect([compiled({ city: "x" }), compiled({})]).toEqual([true, false]);
    expect(schema.$schema).toBe("http://json-schema.org/draft-07/schema#");
    const broken = lazyValidator(() => ajv, "core:b", { $ref: "#/nowhere" });
    expect(() => broken()).toThrow(/^Tool "core:b" has an inputSchema that cannot be compiled: /);
  });
});
