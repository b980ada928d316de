import { describe, expect, expectTypeOf, it } from "vitest";
import { resolveOptions } from "../../src/engine/options.js";
import { compileOptions } from "../../src/validation/ajv.js";
import {
  arrayOf,
  boolean,
  declared,
  defaultsOf,
  int,
  object,
  oneOf,
  recordOf,
  string,
  withDefault,
  withoutDefaults,
  type Filled,
  type Named,
  type TypeOf,
} from "../../src/validation/typed-schema.js";

const schema = object(
  {
    /** A name. */
    name: string({ minLength: 1 }),
    limit: withDefault(int(1, 10), 5),
    mode: oneOf(["a", "b"]),
    on: withDefault(boolean(), false),
    tags: arrayOf(string(), { maxItems: 3 }),
    nested: withDefault(object({ depth: withDefault(int(0, 9), 2), note: string() }), {}),
    hook: declared<(x: number) => void>()({ function: true }),
    kind: { const: "fixed" },
    note: { anyOf: [string(), { type: "null" }] },
  },
  { required: ["name"] },
);

describe("typed schemas", () => {
  it("derive what users write: required keys present, the rest optional, declared values as declared", () => {
    expectTypeOf<TypeOf<typeof schema>>().toEqualTypeOf<{
      name: string;
      limit?: number;
      mode?: "a" | "b";
      on?: boolean;
      tags?: readonly string[];
      nested?: { depth?: number; note?: string };
      hook?: (x: number) => void;
      kind?: "fixed";
      note?: string | null;
    }>();
  });

  it("derive what a check returns: every defaulted key present, in nested objects too", () => {
    type Checked = Filled<typeof schema>;
    expectTypeOf<Checked["limit"]>().toEqualTypeOf<number>();
    expectTypeOf<Checked["nested"]["depth"]>().toEqualTypeOf<number>();
    expectTypeOf<Checked["nested"]["note"]>().toEqualTypeOf<string | undefined>();
    expectTypeOf<Checked["mode"]>().toEqualTypeOf<"a" | "b" | undefined>();
  });

  it("are plain JSON Schema that ajv checks and fills as the types say", () => {
    const check = compileOptions("typedSchemaTest", schema);
    expect(check({ name: "x" }, "t")).toEqual({ name: "x", limit: 5, on: false, nested: { depth: 2 } });
    expect(() => check({ name: "x", limit: 11 }, "t")).toThrow("t.limit: must be an integer from 1 to 10; got 11 (number)");
    expect(() => check({ name: "x", mode: "c" }, "t")).toThrow('t.mode: must be one of "a", "b"');
    expect(() => check({ name: "x", nmae: 1 }, "t")).toThrow('unknown option "nmae"');
    expect(() => check({}, "t")).toThrow('missing required option "name"');
    expect(check({ name: "x", kind: "fixed", note: null }, "t")).toMatchObject({ kind: "fixed", note: null });
    expect(() => check({ name: "x", kind: "moving" }, "t")).toThrow("t.kind: must be equal to constant");
  });

  it("add nothing at run time beyond the JSON Schema keywords", () => {
    expect(JSON.parse(JSON.stringify(schema))).toEqual(schema);
    expect(Object.getOwnPropertySymbols(schema.properties.hook)).toEqual([]);
  });

  it("give the defaults ajv fills into {}, nested objects' own defaults included, from the schema alone", () => {
    const check = compileOptions("typedSchemaDefaults", schema);
    const { name: _, ...filled } = check({ name: "x" }, "t");
    expect(defaultsOf(schema)).toEqual(filled);
    expect(defaultsOf(schema)).toEqual({ limit: 5, on: false, nested: { depth: 2 } });
  });

  it("leave out the defaults where ajv refuses them (under anyOf), checking the same values", () => {
    const stripped = withoutDefaults(schema);
    expect(JSON.stringify(stripped)).not.toContain('"default"');
    expectTypeOf<TypeOf<typeof stripped>>().toEqualTypeOf<TypeOf<typeof schema>>();
    const check = compileOptions("typedSchemaAnyOf", { anyOf: [boolean(), stripped] });
    expect(check({ name: "x" }, "t")).toEqual({ name: "x" });
    expect(() => check({ name: "x", limit: 11 }, "t")).toThrow("t.limit: must be an integer from 1 to 10; got 11 (number)");
  });

  it("type a group embedded from another module by its name", () => {
    const embedding = object({ group: {} as Named<{ depth?: number }> });
    expectTypeOf<TypeOf<typeof embedding>>().toEqualTypeOf<{ group?: { depth?: number } }>();
  });

  it("type and check an object of any keys by the schema of its values", () => {
    const rules = recordOf(object({ allow: arrayOf(string()) }));
    expectTypeOf<TypeOf<typeof rules>>().toEqualTypeOf<Record<string, { allow?: readonly string[] }>>();
    const check = compileOptions("typedSchemaRecord", rules);
    expect(check({ a: { allow: ["x"] }, b: {} }, "t")).toEqual({ a: { allow: ["x"] }, b: {} });
    expect(() => check({ a: { alow: [] } }, "t")).toThrow('t.a: unknown option "alow"');
  });

  // Through createToolSearch's own options (a new schema name here would be one the validator generator does not know).
  it("give createToolSearch's options their defaults, nested ones included, and leave options without one absent", () => {
    const resolved = resolveOptions({ limits: { argsDepth: 7 } });
    expect(resolved.callTimeoutMs).toBe(60_000);
    expect(resolved.backend).toBe("bm25f");
    expect(resolved.sources).toEqual([]);
    expect(resolved.tracing).toEqual({ recordQueryText: false });
    expect(resolved.argsLimits).toEqual({ maxBytes: 524_288, maxDepth: 7 });
    expect(resolved.schemaLimits).toEqual({ maxBytes: 65_536, maxNodes: 400, maxDepth: 24, maxPatterns: 64 });
    expect("tenants" in resolved).toBe(false);
    expectTypeOf<ReturnType<typeof resolveOptions>["callTimeoutMs"]>().toEqualTypeOf<number>();
    expectTypeOf<ReturnType<typeof resolveOptions>["tracing"]>().toEqualTypeOf<{ recordQueryText: boolean }>();
    expectTypeOf<ReturnType<typeof resolveOptions>["tenants"]>().toEqualTypeOf<readonly string[] | undefined>();
  });
});
