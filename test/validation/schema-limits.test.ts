import { describe, expect, it } from "vitest";
import { argsOverLimits } from "../../src/validation/args-limits.js";
import { DEFAULT_SCHEMA_LIMITS, schemaOverLimits, unsupportedPattern } from "../../src/validation/schema-limits.js";

const limits = { maxBytes: 10_000, maxNodes: 50, maxDepth: 6, maxPatterns: 3 };

function withProperties(n: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (let i = 0; i < n; i++) properties[`p${i}`] = { type: "string", ...extra };
  return { type: "object", properties };
}

describe("untrusted schema caps", () => {
  it("passes ordinary schemas and names the first cap a schema exceeds", () => {
    expect(schemaOverLimits(withProperties(10), limits)).toBeUndefined();
    expect(schemaOverLimits(withProperties(60), limits)).toBe("it has more than 50 schema objects");
    expect(schemaOverLimits(withProperties(4, { pattern: "^a$" }), limits)).toBe("it has more than 3 patterns");
    let deep: Record<string, unknown> = { type: "string" };
    for (let i = 0; i < 8; i++) deep = { type: "object", properties: { a: deep } };
    expect(schemaOverLimits(deep, limits)).toBe("it nests deeper than 6 levels");
    expect(schemaOverLimits({ type: "string", description: "x".repeat(20_000) }, limits)).toMatch(/^it is \d+ bytes of JSON, over the 10000-byte limit$/);
  });

  it("does not count data (enum, const, default, examples) as schema", () => {
    const schema = { type: "object", properties: { mode: { enum: Array.from({ length: 100 }, (_, i) => ({ pattern: `v${i}` })) } } };
    expect(schemaOverLimits(schema, limits)).toBeUndefined();
    expect(unsupportedPattern({ type: "object", default: { pattern: "(?=x)" } })).toBeUndefined();
  });

  it("stops early on a schema with a 6,000-pattern property list", () => {
    const huge = withProperties(6_000, { pattern: "^[a-z]+$" });
    expect(schemaOverLimits(huge)).toBe(`it has more than ${DEFAULT_SCHEMA_LIMITS.maxPatterns} patterns`);
  });

  it("finds patterns the linear engine refuses, in properties and patternProperties", () => {
    expect(unsupportedPattern({ properties: { a: { type: "string", pattern: "^\\w+$" } } })).toBeUndefined();
    expect(unsupportedPattern({ properties: { a: { pattern: "(?!x)" } } })).toMatch(/not supported by the linear-time regex engine/);
    expect(unsupportedPattern({ patternProperties: { "(\\w)\\1": {} } })).toMatch(/not supported/);
  });
});

describe("argument caps", () => {
  const caps = { maxBytes: 1_000, maxDepth: 5 };
  it("passes ordinary arguments and stops at the first cap", () => {
    expect(argsOverLimits({ city: "Oslo", days: 3, tags: ["a", "b"] }, caps)).toBeUndefined();
    expect(argsOverLimits({ text: "x".repeat(2_000) }, caps)).toBe("they are over the 1000-byte limit");
    expect(argsOverLimits({ a: { b: { c: { d: { e: { f: 1 } } } } } }, caps)).toBe("they nest deeper than 5 levels");
    const wide: Record<string, number> = {};
    for (let i = 0; i < 100_000; i++) wide[`k${i}`] = i;
    expect(argsOverLimits(wide, caps)).toBe("they are over the 1000-byte limit");
  });
});
