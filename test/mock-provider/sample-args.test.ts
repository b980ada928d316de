/** sampleArgs: the mock model fills every required field with a value of its type. */
import { describe, expect, it } from "vitest";
import { sampleArgs } from "../../src/mock-provider/sample-args.js";

describe("sampleArgs", () => {
  it("fills required fields only, by type, enums with their first value", () => {
    const schema = {
      properties: {
        n: { type: "integer" },
        x: { type: "number" },
        flag: { type: "boolean" },
        list: { type: "array" },
        obj: { type: "object" },
        unit: { enum: ["c", "f"] },
        city: { type: "string" },
        optional: { type: "string" },
      },
      required: ["n", "x", "flag", "list", "obj", "unit", "city", "untyped", 3],
    };
    expect(sampleArgs(schema)).toEqual({ n: 1, x: 1, flag: true, list: [], obj: {}, unit: "c", city: "sample-city", untyped: "sample-untyped" });
  });

  it("gives {} for anything that is not a schema with required fields", () => {
    expect(sampleArgs(null)).toEqual({});
    expect(sampleArgs("schema")).toEqual({});
    expect(sampleArgs({ properties: { a: { type: "string" } } })).toEqual({});
  });
});
