/** What search and describe hand a model: signatures, compact hits, bounded descriptions. */
import { describe, expect, it } from "vitest";
import type { CatalogEntry, ToolDefinition } from "../../src/catalog/types.js";
import { toDescription, toHit } from "../../src/dispatch/present.js";
import { signatureOf } from "../../src/dispatch/signature.js";

function entry(definition: Partial<ToolDefinition>): CatalogEntry {
  const def: ToolDefinition = { name: "get_weather", description: "Weather.", inputSchema: { type: "object" }, execute: () => null, ...definition };
  return {
    id: "mcp:wx:get_weather",
    name: def.name,
    source: "mcp",
    toolset: "wx",
    definition: def,
    ownerOnly: false,
    validator: () => {
      throw new Error("unused");
    },
  };
}

describe("signatureOf", () => {
  it("lists parameters with their types, optional ones marked", () => {
    const schema = {
      type: "object",
      properties: {
        city: { type: "string" },
        days: { type: "integer" },
        units: { enum: ["c", "f"] },
        tags: { type: "array", items: { type: "string" } },
        at: { type: ["string", "null"] },
        either: { anyOf: [{ type: "string" }, { type: "number" }] },
        free: {},
      },
      required: ["city", 7],
    };
    expect(signatureOf(schema)).toBe('(city: string, days?: integer, units?: "c" | "f", tags?: string[], at?: string | null, either?: union, free?: unknown)');
  });

  it("says nothing without properties, () for none, and stays bounded", () => {
    expect(signatureOf({ type: "object" })).toBeUndefined();
    expect(signatureOf({ properties: {} })).toBe("()");
    expect(signatureOf({ properties: { e: { enum: [1, 2, 3, 4, 5, 6] } } })).toBe("(e?: 1 | 2 | 3 | 4 | …)");
    const wide = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`parameter_${i}`, { type: "string" }]));
    expect(signatureOf({ properties: wide })!.length).toBeLessThanOrEqual(160);
    expect(signatureOf({ properties: { "a\u0000b\u202e": { type: "string" } } })).toBe("(ab?: string)");
  });
});

describe("toHit and toDescription", () => {
  it("a hit: one control-free line, a score capped at 1 and rounded, the signature when there is one", () => {
    const hit = toHit(
      entry({
        description: "Gets the\u0007 weather\nfor a city. Then more text.",
        inputSchema: { properties: { city: { type: "string" } }, required: ["city"] },
      }),
      1.23456,
    );
    expect(hit).toEqual({
      id: "mcp:wx:get_weather",
      name: "get_weather",
      source: "mcp",
      toolset: "wx",
      summary: "Gets the weather for a city.",
      score: 1,
      signature: "(city: string)",
    });
    expect(toHit(entry({}), 0.12345)).toEqual({
      id: "mcp:wx:get_weather",
      name: "get_weather",
      source: "mcp",
      toolset: "wx",
      summary: "Weather.",
      score: 0.123,
    });
    expect(toHit(entry({ description: "x".repeat(1000) }), 0.5).summary.length).toBeLessThanOrEqual(200);
  });

  it("a description: the schemas exactly as registered, the text bounded and control-free", () => {
    const outputSchema = { type: "object", properties: { t: { type: "number" } } };
    const described = toDescription(entry({ description: `\u202eline one\nline two${"y".repeat(5000)}`, outputSchema }));
    expect(described).toMatchObject({ id: "mcp:wx:get_weather", toolset: "wx", inputSchema: { type: "object" }, outputSchema });
    expect(described.description.startsWith("line one\nline two")).toBe(true);
    expect(described.description.length).toBeLessThanOrEqual(4000);
    expect("outputSchema" in toDescription(entry({}))).toBe(false);
  });
});
